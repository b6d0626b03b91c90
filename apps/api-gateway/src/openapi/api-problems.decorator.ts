import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ProblemDetailDto } from '@aas/contracts';
import { reasonPhrase } from '@aas/problem-details';

/** Documents the error statuses of an endpoint, each with the ProblemDetail body. */
export function ApiProblems(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(ProblemDetailDto),
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: reasonPhrase(status),
        content: { 'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDetailDto) } } },
      }),
    ),
  );
}

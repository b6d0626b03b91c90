import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class FieldErrorDto {
  @ApiProperty({ example: 'name' })
  field!: string;

  @ApiProperty({ example: 'name must be longer than or equal to 1 characters' })
  message!: string;
}

/** RFC 9457 Problem Details, the body of every error response. */
export class ProblemDetailDto {
  @ApiProperty({ format: 'uri', example: 'urn:aas:problem:validation-failed' })
  type!: string;

  @ApiProperty({ example: 'Bad Request' })
  title!: string;

  @ApiProperty({ type: 'integer', format: 'int32', example: 400 })
  status!: number;

  @ApiProperty({ example: 'name must be longer than or equal to 1 characters' })
  detail!: string;

  @ApiPropertyOptional({ type: [FieldErrorDto], description: 'Each failing field of a validation error' })
  errors?: FieldErrorDto[];

  @ApiPropertyOptional({ description: 'quota-exceeded only: which quota the request would pass', example: 'api_keys_per_user' })
  quota?: string;

  @ApiPropertyOptional({ type: 'integer', description: 'quota-exceeded only: the value of that quota', example: 100 })
  limit?: number;

  @ApiPropertyOptional({ description: 'The x-request-id of the request, as it appears in the logs' })
  request_id?: string;
}

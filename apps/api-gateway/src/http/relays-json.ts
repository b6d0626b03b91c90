import { Header, applyDecorators } from '@nestjs/common';

/**
 * For a route that returns a service's answer as it came (ServiceClient.requestJson): Fastify sends
 * a string under a JSON content type as it is, so the gateway neither parses nor serialises it.
 * Its reads of runs and agents carry the largest and the most frequent answers.
 */
export function RelaysJson(): MethodDecorator {
  return applyDecorators(Header('content-type', 'application/json; charset=utf-8'));
}

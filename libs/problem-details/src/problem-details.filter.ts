import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Observable, throwError } from 'rxjs';
import { PROBLEM_CONTENT_TYPE } from './problem-detail';
import { toProblem } from './to-problem';

/**
 * The one mapping of errors at every boundary. Over HTTP every error leaves as
 * `application/problem+json`; over the message transport it leaves as Problem
 * Details data, which the gateway answers with unchanged. 5xx are logged with
 * their cause; the client sees no internals.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemDetailsFilter.name);

  catch(error: unknown, host: ArgumentsHost): void | Observable<never> {
    const problem = toProblem(error);
    if (host.getType() === 'rpc') {
      if (problem.status >= 500) this.logger.error({ err: error, problem }, 'message handler failed');
      return throwError(() => problem);
    }
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    if (problem.status >= 500) this.logger.error({ err: error, req_id: request.id, problem }, 'request failed');
    // A 429 from another service carries its Retry-After in the problem (retry_after), for the header.
    const { retry_after: retryAfter, ...body } = problem;
    if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter));
    void reply
      .status(problem.status)
      .header('content-type', PROBLEM_CONTENT_TYPE)
      .send({ ...body, request_id: request.id });
  }
}

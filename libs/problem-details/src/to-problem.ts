import { HttpException } from '@nestjs/common';
import { DomainError, QuotaExceededError, RemoteProblemError, TooManyRequestsError } from './domain-error';
import { ProblemCode, codeForStatus, problemType, statusOf } from './problem-code';
import { isDependencyOutage } from './outage';
import { ProblemDetail, isProblemDetail, reasonPhrase } from './problem-detail';

export function problemFromCode(code: ProblemCode, detail: string): ProblemDetail {
  const status = statusOf(code);
  return { type: problemType(code), title: reasonPhrase(status), status, detail };
}

const INTERNAL_DETAIL = 'An unexpected error occurred; the request id identifies it in the logs.';

/**
 * Maps anything thrown to a Problem Details body. Only domain errors, HTTP
 * exceptions and client errors raised by the HTTP stack keep their message;
 * an unreachable PostgreSQL or Redis is a 503; everything else becomes a bare
 * 500 so no internal detail reaches a client.
 */
export function toProblem(error: unknown): ProblemDetail {
  if (error instanceof DomainError) {
    const problem = problemFromCode(error.code, error.message);
    if (error instanceof QuotaExceededError) return { ...problem, quota: error.quota, limit: error.limit };
    if (error instanceof TooManyRequestsError) return { ...problem, retry_after: error.retryAfterSeconds };
    return error.errors ? { ...problem, errors: error.errors } : problem;
  }
  if (error instanceof RemoteProblemError) return pickProblem(error.problem);
  if (isProblemDetail(error)) return pickProblem(error);
  if (error instanceof HttpException) return fromHttpException(error);
  if (isDependencyOutage(error)) {
    return problemFromCode(ProblemCode.ServiceUnavailable, 'A database or message bus is unreachable; retry shortly.');
  }
  const clientStatus = clientErrorStatus(error);
  if (clientStatus !== undefined) {
    return problemFromCode(codeForStatus(clientStatus), (error as Error).message);
  }
  return problemFromCode(ProblemCode.Internal, INTERNAL_DETAIL);
}

function pickProblem(p: ProblemDetail): ProblemDetail {
  const out: ProblemDetail = { type: p.type, title: p.title, status: p.status, detail: p.detail };
  if (p.errors) out.errors = p.errors;
  if (typeof p.quota === 'string' && typeof p.limit === 'number') {
    out.quota = p.quota;
    out.limit = p.limit;
  }
  if (p.status === 429 && Number.isInteger(p.retry_after) && p.retry_after! > 0) out.retry_after = p.retry_after;
  return out;
}

function fromHttpException(error: HttpException): ProblemDetail {
  const status = error.getStatus();
  const code = codeForStatus(status);
  if (status >= 500) return problemFromCode(code, INTERNAL_DETAIL);
  const response = error.getResponse();
  const message =
    typeof response === 'object' && response !== null && 'message' in response
      ? (response as { message: unknown }).message
      : error.message;
  const detail = Array.isArray(message) ? message.join('; ') : String(message);
  return { ...problemFromCode(code, detail), status, title: reasonPhrase(status) };
}

/** Fastify and its body parsers throw plain errors carrying a 4xx `statusCode`. */
function clientErrorStatus(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

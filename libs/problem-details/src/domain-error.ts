import { FieldError } from './problem-detail';
import { ProblemCode } from './problem-code';

/** Base of every error a service raises on purpose; mapped to Problem Details at each boundary. */
export class DomainError extends Error {
  constructor(
    readonly code: ProblemCode,
    detail: string,
    readonly errors?: FieldError[],
  ) {
    super(detail);
    this.name = new.target.name;
  }
}

export class ValidationFailedError extends DomainError {
  constructor(detail: string, errors?: FieldError[]) {
    super(ProblemCode.ValidationFailed, detail, errors);
  }
}

export class ResourceNotFoundError extends DomainError {
  constructor(resource: string, id?: string) {
    super(ProblemCode.NotFound, id === undefined ? `${resource} not found` : `${resource} ${id} not found`);
  }
}

export class ConflictError extends DomainError {
  constructor(detail: string) {
    super(ProblemCode.Conflict, detail);
  }
}

/** Carrying out the request would pass a quota; `quota` names it and `limit` is its value. */
export class QuotaExceededError extends DomainError {
  constructor(
    detail: string,
    readonly quota: string,
    readonly limit: number,
  ) {
    super(ProblemCode.QuotaExceeded, detail);
  }
}

/** The request body (or the part of it that would be kept) is larger than a limit. */
export class PayloadTooLargeError extends DomainError {
  constructor(detail: string) {
    super(ProblemCode.PayloadTooLarge, detail);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(detail: string) {
    super(ProblemCode.Unauthorized, detail);
  }
}

/** Authenticated, but this request may not be made so (a console request from another origin, or without its CSRF token). */
export class ForbiddenError extends DomainError {
  constructor(detail: string) {
    super(ProblemCode.Forbidden, detail);
  }
}

/** Over a rate limit: the answer carries Retry-After, in whole seconds. */
export class TooManyRequestsError extends DomainError {
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super(ProblemCode.TooManyRequests, detail);
  }
}

export class ServiceUnavailableError extends DomainError {
  constructor(detail: string) {
    super(ProblemCode.ServiceUnavailable, detail);
  }
}

export class GatewayTimeoutError extends DomainError {
  constructor(detail: string) {
    super(ProblemCode.GatewayTimeout, detail);
  }
}

/** A problem another service answered with; the gateway passes it on unchanged. */
export class RemoteProblemError extends Error {
  constructor(readonly problem: import('./problem-detail').ProblemDetail) {
    super(problem.detail);
    this.name = RemoteProblemError.name;
  }
}

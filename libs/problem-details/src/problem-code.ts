/** Every problem this service reports. Each maps to exactly one status and type URI. */
export enum ProblemCode {
  ValidationFailed = 'validation-failed',
  MalformedRequest = 'malformed-request',
  Unauthorized = 'unauthorized',
  Forbidden = 'forbidden',
  NotFound = 'not-found',
  MethodNotAllowed = 'method-not-allowed',
  Conflict = 'conflict',
  QuotaExceeded = 'quota-exceeded',
  PayloadTooLarge = 'payload-too-large',
  UnsupportedMediaType = 'unsupported-media-type',
  TooManyRequests = 'too-many-requests',
  Internal = 'internal-error',
  ServiceUnavailable = 'service-unavailable',
  GatewayTimeout = 'gateway-timeout',
}

export const PROBLEM_TYPE_BASE = 'urn:aas:problem:';

export function problemType(code: ProblemCode): string {
  return PROBLEM_TYPE_BASE + code;
}

export function statusOf(code: ProblemCode): number {
  switch (code) {
    case ProblemCode.ValidationFailed:
    case ProblemCode.MalformedRequest:
      return 400;
    case ProblemCode.Unauthorized:
      return 401;
    case ProblemCode.Forbidden:
      return 403;
    case ProblemCode.NotFound:
      return 404;
    case ProblemCode.MethodNotAllowed:
      return 405;
    case ProblemCode.Conflict:
      return 409;
    case ProblemCode.PayloadTooLarge:
      return 413;
    case ProblemCode.QuotaExceeded:
      // Well-formed, but carrying it out would pass a limit; waiting does not help (not 429), and it may be
      // the request itself that is too big rather than the state (not 409).
      return 422;
    case ProblemCode.UnsupportedMediaType:
      return 415;
    case ProblemCode.TooManyRequests:
      return 429;
    case ProblemCode.Internal:
      return 500;
    case ProblemCode.ServiceUnavailable:
      return 503;
    case ProblemCode.GatewayTimeout:
      return 504;
  }
}

/** The code for a bare HTTP status raised by a framework (Nest, Fastify) rather than by our domain. */
export function codeForStatus(status: number): ProblemCode {
  const byStatus: Record<number, ProblemCode> = {
    400: ProblemCode.MalformedRequest,
    401: ProblemCode.Unauthorized,
    403: ProblemCode.Forbidden,
    404: ProblemCode.NotFound,
    405: ProblemCode.MethodNotAllowed,
    409: ProblemCode.Conflict,
    413: ProblemCode.PayloadTooLarge,
    422: ProblemCode.QuotaExceeded,
    415: ProblemCode.UnsupportedMediaType,
    429: ProblemCode.TooManyRequests,
    503: ProblemCode.ServiceUnavailable,
    504: ProblemCode.GatewayTimeout,
  };
  return byStatus[status] ?? (status >= 500 ? ProblemCode.Internal : ProblemCode.MalformedRequest);
}

import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { STATUS_CODES } from 'node:http';
import { HttpException, InternalServerErrorException, NotFoundException } from '@nestjs/common';
import {
  ConflictError,
  DomainError,
  GatewayTimeoutError,
  QuotaExceededError,
  RemoteProblemError,
  ResourceNotFoundError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
  ValidationFailedError,
} from './domain-error';
import { ProblemCode, codeForStatus, statusOf } from './problem-code';
import { ProblemDetail } from './problem-detail';
import { toProblem } from './to-problem';

const SECRET = 'password=hunter2 at db.internal:5432';

function expectGeneric500(problem: ProblemDetail): void {
  expect(problem.status).toBe(500);
  expect(problem.type).toBe('urn:aas:problem:internal-error');
  expect(problem.title).toBe(STATUS_CODES[500]);
  expect(problem.detail).not.toContain('hunter2');
  expect(problem.detail).not.toContain('db.internal');
}

describe('toProblem', () => {
  it.each<[DomainError, number, string]>([
    [new ValidationFailedError('name is required'), 400, 'validation-failed'],
    [new UnauthorizedError('API key is not valid'), 401, 'unauthorized'],
    [new ResourceNotFoundError('Agent', 'a1'), 404, 'not-found'],
    [new ConflictError('Agent name is taken'), 409, 'conflict'],
    [new ServiceUnavailableError('agents service is down'), 503, 'service-unavailable'],
    [new GatewayTimeoutError('agents service did not reply'), 504, 'gateway-timeout'],
  ])('maps %s to its status, reason phrase, type and message', (error, status, code) => {
    expect(toProblem(error)).toEqual({
      type: `urn:aas:problem:${code}`,
      title: STATUS_CODES[status],
      status,
      detail: error.message,
    });
  });

  it('maps a QuotaExceededError to a 422 naming the quota and its value', () => {
    const error = new QuotaExceededError('You already have 100 active API keys', 'api_keys_per_user', 100);
    expect(toProblem(error)).toEqual({
      type: 'urn:aas:problem:quota-exceeded',
      title: STATUS_CODES[422],
      status: 422,
      detail: 'You already have 100 active API keys',
      quota: 'api_keys_per_user',
      limit: 100,
    });
  });

  it('passes the quota members of a remote quota-exceeded problem through', () => {
    const problem = toProblem(new QuotaExceededError('too many', 'webhooks_per_agent', 20));
    expect(toProblem(new RemoteProblemError({ ...problem, internal: SECRET } as ProblemDetail))).toEqual(problem);
  });

  it("carries a 429's Retry-After across a service boundary, and only a 429's", () => {
    const problem = toProblem(new TooManyRequestsError('slow down', 7));
    expect(problem).toMatchObject({ status: 429, retry_after: 7 });
    expect(toProblem(new RemoteProblemError(problem))).toEqual(problem);
    expect(toProblem(new RemoteProblemError({ ...toProblem(new ConflictError('x')), retry_after: 7 }))).not.toHaveProperty('retry_after');
    // Only what a Retry-After header can say: whole seconds, at least one.
    expect(toProblem(new RemoteProblemError({ ...problem, retry_after: 1.5 }))).not.toHaveProperty('retry_after');
    expect(toProblem(new RemoteProblemError({ ...problem, retry_after: 0 }))).not.toHaveProperty('retry_after');
  });

  it('keeps the field errors of a ValidationFailedError', () => {
    const errors = [{ field: 'child.count', message: 'child.count must be an integer' }];
    expect(toProblem(new ValidationFailedError('invalid', errors)).errors).toEqual(errors);
  });

  it('passes a remote problem through, dropping unknown members', () => {
    const problem: ProblemDetail = {
      type: 'urn:aas:problem:conflict',
      title: 'Conflict',
      status: 409,
      detail: 'Agent name is taken',
      errors: [{ field: 'name', message: 'taken' }],
    };
    const withExtras = { ...problem, stack: `Error: ${SECRET}`, internal: SECRET } as ProblemDetail;
    const result = toProblem(new RemoteProblemError(withExtras));
    expect(result).toEqual(problem);
    expect(result).not.toHaveProperty('stack');
    expect(result).not.toHaveProperty('internal');
  });

  it.each<[string, unknown]>([
    ['a plain Error', new Error(SECRET)],
    ['a thrown string', SECRET],
    ['an object with a stack', { message: SECRET, stack: `Error: ${SECRET}\n    at x` }],
    ['a plain error claiming statusCode 500', Object.assign(new Error(SECRET), { statusCode: 500 })],
  ])('turns %s into a generic 500 that hides the message', (_label, thrown) => {
    expectGeneric500(toProblem(thrown));
  });

  it('keeps the message of a Nest 4xx HttpException', () => {
    const problem = toProblem(new NotFoundException('Route GET /nope not found'));
    expect(problem).toMatchObject({ status: 404, title: STATUS_CODES[404], type: 'urn:aas:problem:not-found' });
    expect(problem.detail).toBe('Route GET /nope not found');
  });

  it('does not leak the message of a Nest 5xx HttpException', () => {
    expectGeneric500(toProblem(new InternalServerErrorException(SECRET)));
    expectGeneric500(toProblem(new HttpException(SECRET, 500)));
  });

  it('trusts a 4xx statusCode on a plain error (Fastify body too large)', () => {
    const error = Object.assign(new Error('Request body is too large'), { statusCode: 413 });
    expect(toProblem(error)).toEqual({
      type: 'urn:aas:problem:payload-too-large',
      title: STATUS_CODES[413],
      status: 413,
      detail: 'Request body is too large',
    });
  });
});

describe('dependency outages', () => {
  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

  it.each([
    ['PostgreSQL refusing connections', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['PostgreSQL shutting down (57P01)', withCode('terminating connection due to administrator command', '57P01')],
    ['a TypeORM error wrapping a connection failure', Object.assign(new Error('query failed'), { driverError: withCode('x', '08006') })],
    ['a dropped PostgreSQL connection', new Error('Connection terminated unexpectedly')],
    ['ioredis giving up', Object.assign(new Error('Reached the max retries per request limit (which is 2).'), { name: 'MaxRetriesPerRequestError' })],
    ['a closed Redis connection', new Error('Connection is closed.')],
    ['a transaction whose connection PostgreSQL dropped', new QueryRunnerAlreadyReleasedError()],
    ['a manager whose connection PostgreSQL dropped', new QueryRunnerProviderAlreadyReleasedError()],
    ['no connection of the pool free in time (pg-pool)', new Error('timeout exceeded when trying to connect')],
    ['a statement over statement_timeout (57014)', withCode('canceling statement due to statement timeout', '57014')],
    ['a transaction over idle_in_transaction_session_timeout (25P03)', withCode('terminating connection due to idle-in-transaction timeout', '25P03')],
  ])('%s is a 503 without internals', (_case, error) => {
    const problem = toProblem(error);
    expect(problem).toMatchObject({ status: 503, type: 'urn:aas:problem:service-unavailable' });
    expect(problem.detail).not.toContain('127.0.0.1');
  });

  it.each([
    ['a constraint violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
  ])('%s stays a 500', (_case, error) => {
    expect(toProblem(error).status).toBe(500);
  });
});

describe('statusOf', () => {
  const codes = Object.values(ProblemCode);

  it.each(codes)('gives %s an error status', (code) => {
    const status = statusOf(code);
    expect(Number.isInteger(status)).toBe(true);
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThanOrEqual(599);
  });

  it.each(codes.filter((c) => c !== ProblemCode.ValidationFailed && c !== ProblemCode.MalformedRequest))(
    'round-trips %s through codeForStatus',
    (code) => {
      expect(codeForStatus(statusOf(code))).toBe(code);
    },
  );

  it('shares 400 only between validation-failed and malformed-request', () => {
    expect(statusOf(ProblemCode.ValidationFailed)).toBe(400);
    expect(statusOf(ProblemCode.MalformedRequest)).toBe(400);
    expect(new Set(codes.map(statusOf)).size).toBe(codes.length - 1);
  });
});

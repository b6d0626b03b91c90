import { backOff } from 'exponential-backoff';

/** pg-pool's error when no connection came free within DATABASE_CONNECT_TIMEOUT_MS: no statement was sent. */
const POOL_WAIT_TIMEOUT = /timeout exceeded when trying to connect/i;
/** serialization_failure and deadlock_detected: PostgreSQL rolled the whole transaction back. */
const ROLLED_BACK_BY_SERVER = new Set(['40001', '40P01']);

/**
 * Whether a unit of work failed in a way that certainly wrote nothing, so running it again cannot
 * apply it twice. A dropped connection does not qualify: its COMMIT may have landed.
 */
export function failedUncommitted(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 3; depth++) {
    const { code, driverError } = cause as Error & { code?: unknown; driverError?: unknown };
    if (typeof code === 'string' && ROLLED_BACK_BY_SERVER.has(code)) return true;
    if (POOL_WAIT_TIMEOUT.test(cause.message)) return true;
    cause = driverError ?? cause.cause; // TypeORM wraps the driver's error
  }
  return false;
}

export interface UncommittedRetry {
  /** Attempts in all, the first included. */
  attempts: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

/** About 10 s of backoff over 8 attempts, on top of each attempt's own wait for a connection. */
export const UNCOMMITTED_RETRY: UncommittedRetry = { attempts: 8, firstDelayMs: 100, maxDelayMs: 4_000 };

/**
 * Runs a unit of work again, with jittered exponential backoff, while it fails without having written
 * anything (failedUncommitted): a burst that saturates the pool or a deadlock delays the work rather
 * than failing it. Any other failure, or the last attempt's, is thrown as it is.
 */
export function retryUncommitted<T>(work: () => Promise<T>, retry: UncommittedRetry = UNCOMMITTED_RETRY): Promise<T> {
  return backOff(work, {
    numOfAttempts: retry.attempts,
    startingDelay: retry.firstDelayMs,
    maxDelay: retry.maxDelayMs,
    jitter: 'full',
    retry: (error: unknown) => failedUncommitted(error),
  });
}

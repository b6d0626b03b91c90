/** Socket errors of a connection to PostgreSQL or Redis that is down or restarting. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/**
 * PostgreSQL SQLSTATEs of a server going away or not taking connections (class 08, 57P01-03, 53300), or
 * of work it cut short for taking too long (57014 statement timeout, 25P03 idle in transaction, 55P03 lock).
 */
const POSTGRES_OUTAGE = /^(08...|57P0[123]|53300|57014|25P03|55P03)$/;
/** The last one is pg-pool's: no connection of the pool came free within DATABASE_CONNECT_TIMEOUT_MS. */
const OUTAGE_MESSAGE = /Connection terminated|Connection is closed|max retries per request|Stream isn't writeable|timeout exceeded when trying to connect/i;
/**
 * TypeORM's answers to a query on a connection it has already given up: after PostgreSQL dropped the
 * connection mid-transaction, the transaction's remaining statements fail with these, not the socket error.
 */
const RELEASED_CONNECTION = new Set(['QueryRunnerAlreadyReleasedError', 'QueryRunnerProviderAlreadyReleasedError']);

/**
 * Whether an error means a dependency is unreachable rather than that the
 * request or the code is wrong: those are a 503 (retry later), not a 500.
 */
export function isDependencyOutage(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 3; depth++) {
    const { code, name, driverError } = cause as Error & { code?: unknown; driverError?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || POSTGRES_OUTAGE.test(code))) return true;
    if (name === 'MaxRetriesPerRequestError' || OUTAGE_MESSAGE.test(cause.message)) return true;
    if (RELEASED_CONNECTION.has(cause.constructor.name) || RELEASED_CONNECTION.has(name)) return true;
    // TypeORM wraps the driver's error.
    cause = driverError ?? cause.cause;
  }
  return false;
}

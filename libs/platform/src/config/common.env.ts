import { IsIn, IsInt, Matches, Max, Min } from 'class-validator';
import { NESTED_CONNECTION_POLICIES, NestedConnectionPolicy } from '../database/nested-connection-guard';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Settings every app reads. Defaults as documented in docs/operations.md. */
export class CommonEnv {
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'REDIS_PREFIX must be 1-64 characters of letters, digits, _ . -' })
  REDIS_PREFIX: string = 'aas';

  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  /** How long a caller waits for a service's reply over the transport. */
  @IsInt({ message: 'RPC_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(600_000)
  RPC_TIMEOUT_MS: number = 10_000;
}

/** Settings of an app that owns a schema and serves health on its own port. */
export class ServiceEnv extends CommonEnv {
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL: string = 'postgres://postgres@127.0.0.1:5432/agent_automation';

  @IsInt({ message: 'DATABASE_POOL_SIZE must be an integer' })
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE: number = 10;

  /** How long a query waits for a free connection of the pool before it fails (a 503); 0 waits for ever. */
  @IsInt({ message: 'DATABASE_CONNECT_TIMEOUT_MS must be an integer' })
  @Min(0)
  @Max(600_000)
  DATABASE_CONNECT_TIMEOUT_MS: number = 5_000;

  /** PostgreSQL's statement_timeout for the app's connections; 0: none. */
  @IsInt({ message: 'DATABASE_STATEMENT_TIMEOUT_MS must be an integer' })
  @Min(0)
  @Max(3_600_000)
  DATABASE_STATEMENT_TIMEOUT_MS: number = 30_000;

  /** PostgreSQL's idle_in_transaction_session_timeout: a transaction left waiting this long is ended by the server; 0: none. */
  @IsInt({ message: 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS must be an integer' })
  @Min(0)
  @Max(3_600_000)
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: number = 30_000;

  /** A transaction asking its own pool for a second connection: `log` it (once per place), or `refuse` the query. */
  @IsIn(NESTED_CONNECTION_POLICIES, { message: `DATABASE_NESTED_CONNECTIONS must be one of ${NESTED_CONNECTION_POLICIES.join(', ')}` })
  DATABASE_NESTED_CONNECTIONS: NestedConnectionPolicy = 'log';

  @IsInt({ message: 'HEALTH_PORT must be an integer' })
  @Min(0)
  @Max(65535)
  /** Each app sets its own default (docs/operations.md); 0 lets the OS pick a port. */
  HEALTH_PORT: number = 0;

  /** Requests this process handles at once from the transport. */
  @IsInt()
  @Min(1)
  @Max(1024)
  RPC_CONCURRENCY: number = 64;

  /**
   * On SIGTERM, how long queue workers may finish the jobs they hold before
   * long ones are cut short; keep it under the pod's termination grace period.
   */
  @IsInt({ message: 'SHUTDOWN_DRAIN_MS must be an integer' })
  @Min(0)
  @Max(600_000)
  SHUTDOWN_DRAIN_MS: number = 20_000;
}

import { ServiceEnv } from '@aas/platform';
import { IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, ValidateBy } from 'class-validator';
import { DEFAULT_CREDIT_PRICES, parseCreditPrices } from '../usage/credit-prices';

/** A CREDIT_PRICES value the app can price with; its message names what is wrong. */
function IsCreditPriceTable(): PropertyDecorator {
  return ValidateBy({
    name: 'isCreditPriceTable',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && typeof parseCreditPrices(value) !== 'string',
      defaultMessage: (args) => {
        const problem = typeof args?.value === 'string' ? parseCreditPrices(args.value) : 'CREDIT_PRICES must be a JSON array';
        return typeof problem === 'string' ? problem : 'CREDIT_PRICES is not valid';
      },
    },
  });
}

/** The settings of docs/runtime-protocol.md, and how many runs one process executes at once. */
export class RunsEnv extends ServiceEnv {
  override HEALTH_PORT: number = 3002;

  /** External runtime; unset means the built-in runtime. */
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'AGENT_RUNTIME_URL must be an http(s) URL' })
  AGENT_RUNTIME_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'AGENT_RUNTIME_SECRET must be at least 16 characters' })
  AGENT_RUNTIME_SECRET?: string;

  /**
   * Credits per million input and output tokens, by model name pattern (usage/credit-prices.ts,
   * docs/operations.md): what turns a runtime's `usage` lines into a run's credits_consumed.
   */
  @IsCreditPriceTable()
  CREDIT_PRICES: string = JSON.stringify(DEFAULT_CREDIT_PRICES);

  /** How long a replica keeps the runtime's tool catalogue (GET /v1/tools, tools/tool-catalogue.ts); 0: asks every time. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  TOOL_CATALOGUE_CACHE_MS: number = 30_000;

  @IsInt()
  @Min(1000)
  RUN_TIMEOUT_MS: number = 3_600_000;

  @IsInt()
  @Min(100)
  RUN_PAUSE_AFTER_MS: number = 900_000;

  /**
   * How long a run's end waits for its effects on agents-service and scheduler-service (lifecycle/run-ends.ts)
   * before it is made visible without them (its events then carry them); the run reads unfinished meanwhile.
   */
  @IsInt({ message: 'RUN_END_EFFECTS_TIMEOUT_MS must be an integer' })
  @Min(1000)
  @Max(86_400_000)
  RUN_END_EFFECTS_TIMEOUT_MS: number = 300_000;

  @IsInt()
  @Min(0)
  @Max(60_000)
  BUILTIN_RUNTIME_STEP_MS: number = 200;

  /** Runs executed at once by one runs-service process. */
  @IsInt()
  @Min(1)
  @Max(1000)
  RUN_WORKER_CONCURRENCY: number = 20;

  /** Connections each process keeps for accepting runs, besides DATABASE_POOL_SIZE (acceptance/run-acceptance-database.ts). */
  @IsInt()
  @Min(1)
  @Max(100)
  RUN_ACCEPTANCE_POOL_SIZE: number = 4;

  /**
   * Runs of one user executing at once, across every replica (admission/); the rest wait, queued, oldest
   * first. 0: no limit. Keep it below the total worker capacity (replicas × RUN_WORKER_CONCURRENCY).
   */
  @IsInt({ message: 'RUN_CONCURRENCY_PER_USER must be an integer (0: no limit)' })
  @Min(0)
  @Max(100_000)
  RUN_CONCURRENCY_PER_USER: number = 10;

  /** Runs of one agent executing at once, across every replica. 0: no limit. */
  @IsInt({ message: 'RUN_CONCURRENCY_PER_AGENT must be an integer (0: no limit)' })
  @Min(0)
  @Max(100_000)
  RUN_CONCURRENCY_PER_AGENT: number = 5;

  /**
   * Runs one user may have waiting for admission (accepted, not yet executing), across every replica;
   * a start over it is refused with a 422 quota-exceeded naming waiting_runs_per_user. 0: no limit.
   */
  @IsInt({ message: 'QUOTA_WAITING_RUNS_PER_USER must be an integer (0: no limit)' })
  @Min(0)
  @Max(1_000_000)
  QUOTA_WAITING_RUNS_PER_USER: number = 1000;

  /**
   * Input requests one user may have pending (docs/input-requests.md): a run that asks past it ends in
   * error, so one user's waiting questions (and their kept state) stay bounded. 0: no limit.
   */
  @IsInt({ message: 'QUOTA_PENDING_INPUT_REQUESTS_PER_USER must be an integer (0: no limit)' })
  @Min(0)
  @Max(1_000_000)
  QUOTA_PENDING_INPUT_REQUESTS_PER_USER: number = 100;

  /**
   * Runs one chain of triggered runs may start besides the run at its root: event triggers, and this
   * installation's webhook deliveries into its inbound endpoints. 0: no limit.
   */
  @IsInt({ message: 'TRIGGER_CHAIN_MAX_RUNS must be an integer (0: no limit)' })
  @Min(0)
  @Max(1_000_000)
  TRIGGER_CHAIN_MAX_RUNS: number = 100;

  /**
   * How many days finished runs are kept, with their events, deliveries and trigger payloads, unless their
   * workspace says otherwise (docs/retention.md). 0: kept forever.
   */
  @IsInt({ message: 'RUN_RETENTION_DAYS must be an integer (0: keep forever)' })
  @Min(0)
  @Max(36_500)
  RUN_RETENTION_DAYS: number = 30;

  /** How often the retention purge runs (one job across replicas). */
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  RUN_PURGE_INTERVAL_MS: number = 600_000;

  /** Runs deleted per transaction by the purge (their events go with them). */
  @IsInt()
  @Min(1)
  @Max(1000)
  RUN_PURGE_BATCH_SIZE: number = 200;

  /** The purge's pause between two batches, so that it never holds the database for long. */
  @IsInt()
  @Min(0)
  @Max(60_000)
  RUN_PURGE_PAUSE_MS: number = 200;

  /** Runs one bulk action may match (filter or run_ids); more is a 422 naming bulk_action_runs. */
  @IsInt({ message: 'QUOTA_BULK_ACTION_RUNS must be an integer' })
  @Min(1)
  @Max(1_000_000)
  QUOTA_BULK_ACTION_RUNS: number = 10_000;

  /** Bulk actions one user may have queued or running at once; another is a 422 naming active_bulk_actions_per_user. */
  @IsInt({ message: 'QUOTA_ACTIVE_BULK_ACTIONS_PER_USER must be an integer' })
  @Min(1)
  @Max(1000)
  QUOTA_ACTIVE_BULK_ACTIONS_PER_USER: number = 2;

  /** Bulk actions one user may create in an hour (a sliding hour); another is a 429 with Retry-After. */
  @IsInt({ message: 'QUOTA_BULK_ACTIONS_PER_HOUR must be an integer' })
  @Min(1)
  @Max(100_000)
  QUOTA_BULK_ACTIONS_PER_HOUR: number = 30;

  /** Runs a bulk action handles per job before the next chunk goes to the back of the queue (fairness). */
  @IsInt({ message: 'BULK_ACTION_CHUNK_SIZE must be an integer' })
  @Min(1)
  @Max(1000)
  BULK_ACTION_CHUNK_SIZE: number = 50;
}

import { EnvBoolean, ServiceEnv } from '@aas/platform';
import { IsBoolean, IsInt, Matches, Max, Min, ValidateBy } from 'class-validator';

export class WebhooksEnv extends ServiceEnv {
  override HEALTH_PORT: number = 3004;

  /** Key (base64 of 32 bytes) that encrypts signing secrets at rest. Generate: `openssl rand -base64 32`. */
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'WEBHOOK_SECRET_KEY must be the base64 of 32 random bytes (openssl rand -base64 32)' })
  WEBHOOK_SECRET_KEY!: string;

  /** Allow webhook URLs that resolve to loopback, private or link-local addresses (SSRF protection off). */
  @EnvBoolean()
  @IsBoolean({ message: 'WEBHOOK_ALLOW_PRIVATE_NETWORKS must be true or false' })
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean = false;

  /** A delivery succeeds on a 2xx within this time. */
  @IsInt()
  @Min(100)
  @Max(120_000)
  WEBHOOK_TIMEOUT_MS: number = 15_000;

  /** Delays between attempts, e.g. 5s,5m,30m,2h,5h,10h,10h (each with ±20 % jitter). */
  @Matches(/^\s*\d+\s*(ms|s|m|h)\s*(,\s*\d+\s*(ms|s|m|h)\s*)*$/, { message: 'WEBHOOK_RETRY_DELAYS must look like 5s,5m,30m,2h' })
  WEBHOOK_RETRY_DELAYS: string = '5s,5m,30m,2h,5h,10h,10h';

  /** Deliveries one webhook-delivery process sends at once. */
  @IsInt()
  @Min(1)
  @Max(2000)
  WEBHOOK_WORKER_CONCURRENCY: number = 100;

  /** A worker holds a delivery's lock this long between renewals; a dead worker's delivery is taken over after it lapses. */
  @IsInt()
  @Min(500)
  @Max(600_000)
  WEBHOOK_LOCK_DURATION_MS: number = 30_000;

  /** How often workers look for deliveries whose worker died. */
  @IsInt()
  @Min(500)
  @Max(600_000)
  WEBHOOK_STALLED_INTERVAL_MS: number = 30_000;

  /** Deliveries of one webhook (an endpoint) in flight at once, across every process; 0 turns the limit off. */
  @IsInt({ message: 'WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT must be an integer' })
  @Min(0)
  @Max(100_000)
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: number = 4;

  /** Deliveries of one user's webhooks, all together, in flight at once, across every process; 0 turns the limit off. */
  @IsInt({ message: 'WEBHOOK_MAX_IN_FLIGHT_PER_USER must be an integer' })
  @Min(0)
  @Max(100_000)
  WEBHOOK_MAX_IN_FLIGHT_PER_USER: number = 25;

  /** Failed attempts in a row (no answer, or a 5xx) after which a webhook's circuit opens; 0 turns the circuit breaker off. */
  @IsInt({ message: 'WEBHOOK_CIRCUIT_FAILURE_THRESHOLD must be an integer' })
  @Min(0)
  @Max(1000)
  WEBHOOK_CIRCUIT_FAILURE_THRESHOLD: number = 5;

  /** How long an open circuit waits before letting one probe through; doubled on each failed probe. */
  @IsInt({ message: 'WEBHOOK_CIRCUIT_COOLDOWN_MS must be an integer' })
  @Min(100)
  @Max(86_400_000)
  WEBHOOK_CIRCUIT_COOLDOWN_MS: number = 60_000;

  /** The longest cool-down the doubling reaches. */
  @IsInt({ message: 'WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS must be an integer' })
  @Max(86_400_000)
  @AtLeastSetting('WEBHOOK_CIRCUIT_COOLDOWN_MS')
  WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS: number = 600_000;

  /** Test events one webhook may be sent per minute (POST …/test), across every replica; more is a 429. 0 turns the limit off. */
  @IsInt({ message: 'WEBHOOK_TEST_EVENTS_PER_MINUTE must be an integer' })
  @Min(0)
  @Max(10_000)
  WEBHOOK_TEST_EVENTS_PER_MINUTE: number = 5;

  /** Test events and bulk redeliveries one user may ask for per minute, all of their webhooks together; more is a 429. 0: no limit. */
  @IsInt({ message: 'WEBHOOK_REQUESTED_SENDS_PER_USER_PER_MINUTE must be an integer' })
  @Min(0)
  @Max(100_000)
  WEBHOOK_REQUESTED_SENDS_PER_USER_PER_MINUTE: number = 30;

  /** Failed deliveries one "redeliver every failed delivery since" request queues at most; the answer says when more are left. */
  @IsInt({ message: 'WEBHOOK_REDELIVER_SINCE_MAX must be an integer' })
  @Min(1)
  @Max(10_000)
  WEBHOOK_REDELIVER_SINCE_MAX: number = 1000;

  /** Bulk-redelivered deliveries of one user that come due per second, however many requests asked for them. */
  @IsInt({ message: 'WEBHOOK_REDELIVER_SINCE_PER_SECOND must be an integer' })
  @Min(1)
  @Max(1000)
  WEBHOOK_REDELIVER_SINCE_PER_SECOND: number = 20;

  /** Webhooks one agent may have (active and disabled); more is a 422 quota-exceeded. 0 turns the quota off. */
  @IsInt({ message: 'QUOTA_WEBHOOKS_PER_AGENT must be an integer' })
  @Min(0)
  @Max(1_000_000)
  QUOTA_WEBHOOKS_PER_AGENT: number = 20;
}

/** The value may not be below another setting's (read from the same settings object). */
function AtLeastSetting(other: keyof WebhooksEnv): PropertyDecorator {
  return ValidateBy({
    name: 'atLeastSetting',
    validator: {
      validate: (value, args) => typeof value === 'number' && value >= Number((args?.object as WebhooksEnv)[other]),
      defaultMessage: (args) => `${args?.property} must be at least ${String(other)}`,
    },
  });
}

import { EnvBoolean, ServiceEnv } from '@aas/platform';
import { IsBoolean, IsInt, Matches, Max, Min } from 'class-validator';

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

  /** Webhooks one agent may have (active and disabled); more is a 422 quota-exceeded. 0 turns the quota off. */
  @IsInt({ message: 'QUOTA_WEBHOOKS_PER_AGENT must be an integer' })
  @Min(0)
  @Max(1_000_000)
  QUOTA_WEBHOOKS_PER_AGENT: number = 20;
}

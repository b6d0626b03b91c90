import { RUN_START_BATCH_MAX } from '@aas/contracts';
import { ServiceEnv } from '@aas/platform';
import { IsInt, Matches, Max, Min } from 'class-validator';

export class SchedulerEnv extends ServiceEnv {
  override HEALTH_PORT: number = 3003;

  /** Failures in a row (error, outcome fail, or a run that cannot start) after which a schedule pauses itself. */
  @IsInt()
  @Min(1)
  @Max(1000)
  SCHEDULE_AUTO_PAUSE_AFTER: number = 5;

  /** How often each replica looks for due schedules. */
  @IsInt()
  @Min(10)
  @Max(10_000)
  SCHEDULER_TICK_MS: number = 100;

  /** Fires are taken this long before they are due and started at their exact time, so queueing adds no lag. */
  @IsInt()
  @Min(0)
  @Max(10_000)
  SCHEDULER_LOOKAHEAD_MS: number = 1000;

  /** A fire taken later than this after its time is missed: the schedule's misfire policy decides (Quartz's default threshold). */
  @IsInt()
  @Min(1000)
  @Max(24 * 3600 * 1000)
  SCHEDULER_MISFIRE_THRESHOLD_MS: number = 60_000;

  /** The most missed fires one catch-up (`misfire: catch_up`) replays for a schedule, oldest first; the missed fires beyond it are skipped. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  SCHEDULER_CATCH_UP_MAX_FIRES: number = 100;

  /** The most runs one backfill request may start (at most one runs-service batch). */
  @IsInt()
  @Min(1)
  @Max(RUN_START_BATCH_MAX)
  SCHEDULE_BACKFILL_MAX_RUNS: number = 100;

  /** Key (base64 of 32 bytes) that encrypts inbound triggers' signing secrets at rest, as webhook-delivery's do. */
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'WEBHOOK_SECRET_KEY must be the base64 of 32 random bytes (openssl rand -base64 32)' })
  WEBHOOK_SECRET_KEY!: string;

  /** Triggers one agent may have (both kinds, active and disabled); more is a 422 quota-exceeded. 0 turns the quota off. */
  @IsInt({ message: 'QUOTA_TRIGGERS_PER_AGENT must be an integer' })
  @Min(0)
  @Max(1_000_000)
  QUOTA_TRIGGERS_PER_AGENT: number = 20;

  /** Event-trigger hops one chain may make: a start deeper than this is refused and recorded on its trigger (stops A→B→A loops). */
  @IsInt()
  @Min(1)
  @Max(1000)
  TRIGGER_MAX_DEPTH: number = 10;

  /**
   * Calls one inbound endpoint may take per RATE_LIMIT_WINDOW_SECONDS, from all addresses together, counted
   * once the call passed its token and signature checks (so strangers cannot use it up). 0 turns it off.
   */
  @IsInt({ message: 'RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS must be an integer' })
  @Min(0)
  RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS: number = 600;

  /** Verified inbound calls to all of one user's endpoints together per RATE_LIMIT_WINDOW_SECONDS; 0 turns it off. */
  @IsInt({ message: 'RATE_LIMIT_INBOUND_OWNER_REQUESTS must be an integer' })
  @Min(0)
  RATE_LIMIT_INBOUND_OWNER_REQUESTS: number = 1200;

  /** The window of the inbound limits: the same setting, and the same value, as the gateway's rate limits. */
  @IsInt({ message: 'RATE_LIMIT_WINDOW_SECONDS must be an integer' })
  @Min(1)
  @Max(86_400)
  RATE_LIMIT_WINDOW_SECONDS: number = 60;

  /**
   * Runs one owner's inbound endpoints, event triggers and backfills together may start per minute, across
   * every replica; apart from the gateway's per-user request limit. 0 turns it off.
   */
  @IsInt({ message: 'RATE_LIMIT_TRIGGERED_RUNS must be an integer (0: no limit)' })
  @Min(0)
  @Max(1_000_000)
  RATE_LIMIT_TRIGGERED_RUNS: number = 600;

  /**
   * The largest payload kept with a run: an inbound call's body (more is a 413), an event trigger's
   * source run (its summary is cut to fit).
   */
  @IsInt()
  @Min(1024)
  @Max(10 * 1024 * 1024)
  TRIGGER_PAYLOAD_MAX_BYTES: number = 256 * 1024;
}

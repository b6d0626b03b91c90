import { RUN_START_BATCH_MAX } from '@aas/contracts';
import { ServiceEnv } from '@aas/platform';
import { IsInt, Max, Min } from 'class-validator';

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
}

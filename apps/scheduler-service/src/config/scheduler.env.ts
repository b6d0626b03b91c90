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
}

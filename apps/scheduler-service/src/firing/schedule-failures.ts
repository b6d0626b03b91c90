import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SchedulerEnv } from '../config/scheduler.env';
import { FireFailure, ScheduleStore } from '../schedules/schedule.store';

/** How a scheduled run's end counts: error or outcome fail is a failure, success or partial resets, a stop is neither. */
export type RunEndVerdict = 'failure' | 'success' | 'neither';

/**
 * consecutive_failures and auto-pause (SCHEDULE_AUTO_PAUSE_AFTER failures in a
 * row pause the schedule), the schedule's last error, and its record of its
 * unfinished run.
 */
@Injectable()
export class ScheduleFailures {
  private readonly logger = new Logger(ScheduleFailures.name);

  constructor(
    private readonly store: ScheduleStore,
    private readonly config: ConfigService<SchedulerEnv, true>,
  ) {}

  /** Fires that failed: refused by runs-service (agent gone, not deployed) or not started after their retries. */
  async recordFailedFires(failures: FireFailure[]): Promise<void> {
    if (failures.length === 0) return;
    for (const failure of failures) this.logger.warn({ agent_id: failure.agentId, error: failure.error }, 'schedule fire failed');
    await this.store.recordFireFailures(failures, this.autoPauseAfter());
  }

  /** A scheduled run finished; see ScheduleStore.recordRunEnd. */
  recordRunEnd(agentId: string, runId: string, verdict: RunEndVerdict, agentGeneration: number | null = null): Promise<void> {
    return this.store.recordRunEnd(agentId, runId, verdict, this.autoPauseAfter(), agentGeneration);
  }

  private autoPauseAfter(): number {
    return this.config.get('SCHEDULE_AUTO_PAUSE_AFTER', { infer: true });
  }
}

import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SchedulerEnv } from '../config/scheduler.env';

/** How a scheduled run's end counts: error or outcome fail is a failure, success or partial resets, a stop is neither. */
export type RunEndVerdict = 'failure' | 'success' | 'neither';

/**
 * consecutive_failures and auto-pause (SCHEDULE_AUTO_PAUSE_AFTER failures in a
 * row pause the schedule), and the schedule's record of its unfinished run.
 */
@Injectable()
export class ScheduleFailures {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: ConfigService<SchedulerEnv, true>,
  ) {}

  /** Fires runs-service refused to start (agent gone, not deployed): one failure for each schedule. */
  async recordRefusals(agentIds: string[]): Promise<void> {
    if (agentIds.length === 0) return;
    await this.dataSource.query(
      `UPDATE schedules SET
         consecutive_failures = consecutive_failures + 1,
         paused = paused OR consecutive_failures + 1 >= $2,
         auto_paused = auto_paused OR consecutive_failures + 1 >= $2,
         updated_at = now()
       WHERE agent_id = ANY($1::uuid[])`,
      [agentIds, this.autoPauseAfter()],
    );
  }

  /**
   * A scheduled run finished. Besides the count, the schedule forgets the run if
   * it is the one it recorded as unfinished: the overlap rule then needs no
   * question to runs-service. A newer run recorded meanwhile is left in place.
   */
  async recordRunEnd(agentId: string, runId: string, verdict: RunEndVerdict): Promise<void> {
    await this.dataSource.query(
      `UPDATE schedules SET
         consecutive_failures = CASE $3::text WHEN 'failure' THEN consecutive_failures + 1
                                              WHEN 'success' THEN 0 ELSE consecutive_failures END,
         paused = paused OR ($3::text = 'failure' AND consecutive_failures + 1 >= $4),
         auto_paused = auto_paused OR ($3::text = 'failure' AND consecutive_failures + 1 >= $4),
         active_run_id = CASE WHEN active_run_id = $2::uuid THEN NULL ELSE active_run_id END,
         updated_at = now()
       WHERE agent_id = $1`,
      [agentId, runId, verdict, this.autoPauseAfter()],
    );
  }

  private autoPauseAfter(): number {
    return this.config.get('SCHEDULE_AUTO_PAUSE_AFTER', { infer: true });
  }
}

import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SchedulerEnv } from '../config/scheduler.env';

/** consecutive_failures and auto-pause: SCHEDULE_AUTO_PAUSE_AFTER failures in a row pause the schedule. */
@Injectable()
export class ScheduleFailures {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: ConfigService<SchedulerEnv, true>,
  ) {}

  async recordFailure(agentId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE schedules SET
         consecutive_failures = consecutive_failures + 1,
         paused = paused OR consecutive_failures + 1 >= $2,
         auto_paused = auto_paused OR consecutive_failures + 1 >= $2,
         updated_at = now()
       WHERE agent_id = $1`,
      [agentId, this.config.get('SCHEDULE_AUTO_PAUSE_AFTER', { infer: true })],
    );
  }

  async recordSuccess(agentId: string): Promise<void> {
    await this.dataSource.query(`UPDATE schedules SET consecutive_failures = 0, updated_at = now() WHERE agent_id = $1`, [agentId]);
  }
}

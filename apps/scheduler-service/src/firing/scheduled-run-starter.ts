import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  RunResponse,
  RunsPatterns,
  ScheduleFireEvent,
  ScheduledRunOutcome,
  StartScheduledRunMessage,
  StartScheduledRunsResponse,
} from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { RemoteProblemError } from '@aas/problem-details';
import { DataSource, In } from 'typeorm';
import { ScheduleEntity } from '../schedules/schedule.entity';
import { ScheduleFailures } from './schedule-failures';

/**
 * Starts the runs of fires due together, with one request to runs-service, which
 * keys each run by its fire time: fires retried or handled twice still make one
 * run each. Schedules are read at the fire time, so one paused or deleted while
 * its fire waited fires nothing.
 */
@Injectable()
export class ScheduledRunStarter {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly services: ServiceClient,
    private readonly failures: ScheduleFailures,
  ) {}

  async start(fires: ScheduleFireEvent[]): Promise<void> {
    const schedules = await this.dataSource.manager.findBy(ScheduleEntity, { agentId: In(fires.map((f) => f.agent_id)) });
    const active = new Map(schedules.filter((s) => !s.paused).map((s) => [s.agentId, s]));
    const due = await this.withoutOverlaps(fires.filter((f) => active.has(f.agent_id)), active);
    if (due.length === 0) return;
    const { outcomes } = await this.services.request<StartScheduledRunsResponse>(RunsPatterns.StartScheduledRuns, {
      fires: due.map(toStartMessage),
    });
    await this.recordActiveRuns(outcomes.filter(isStarted));
    // A refusal (agent not deployed, deleted, …) counts as a failure of that schedule only.
    await this.failures.recordRefusals(outcomes.filter((o) => !isStarted(o)).map((o) => o.agent_id));
  }

  /** Drops the fires of `skip` schedules whose previous scheduled run is still going. */
  private async withoutOverlaps(fires: ScheduleFireEvent[], schedules: Map<string, ScheduleEntity>): Promise<ScheduleFireEvent[]> {
    const overlapping = await Promise.all(fires.map((fire) => this.previousRunUnfinished(schedules.get(fire.agent_id)!)));
    return fires.filter((_, i) => !overlapping[i]);
  }

  /**
   * The schedule forgets its run when the run's end event arrives, so no recorded
   * run means the last one finished. A recorded run may have finished without the
   * event having arrived yet: runs-service, which owns runs, has the last word.
   */
  private async previousRunUnfinished(schedule: ScheduleEntity): Promise<boolean> {
    if (schedule.overlap !== 'skip' || !schedule.activeRunId) return false;
    try {
      const { run } = await this.services.request<RunResponse>(RunsPatterns.GetRun, {
        user_id: schedule.userId,
        agent_id: schedule.agentId,
        run_id: schedule.activeRunId,
      });
      return !run.is_finished;
    } catch (error) {
      if (error instanceof RemoteProblemError && error.problem.status === 404) return false;
      throw error;
    }
  }

  /** Each schedule's newest run, for the overlap rule, in one statement. */
  private async recordActiveRuns(started: Array<Extract<ScheduledRunOutcome, { run_id: string }>>): Promise<void> {
    if (started.length === 0) return;
    await this.dataSource.query(
      `UPDATE schedules s SET active_run_id = v.run_id
         FROM unnest($1::uuid[], $2::uuid[]) AS v(agent_id, run_id)
        WHERE s.agent_id = v.agent_id`,
      [started.map((o) => o.agent_id), started.map((o) => o.run_id)],
    );
  }
}

function isStarted(outcome: ScheduledRunOutcome): outcome is Extract<ScheduledRunOutcome, { run_id: string }> {
  return 'run_id' in outcome;
}

/** Only the fields runs-service takes: a job written by another version may carry more. */
function toStartMessage(fire: ScheduleFireEvent): StartScheduledRunMessage {
  return { user_id: fire.user_id, agent_id: fire.agent_id, fire_time: fire.fire_time };
}

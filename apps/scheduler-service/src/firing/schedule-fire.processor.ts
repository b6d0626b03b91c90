import { Processor, WorkerHost } from '@nestjs/bullmq';
import { InjectDataSource } from '@nestjs/typeorm';
import { QueueNames, RunResponse, RunsPatterns, ScheduleFireEvent } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { RemoteProblemError } from '@aas/problem-details';
import { Job } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { ScheduleEntity } from '../schedules/schedule.entity';
import { ScheduleFailures } from './schedule-failures';

/**
 * Starts the run of one fire. runs-service keys the start by the fire time, so
 * a fire retried (or processed twice) still makes one run.
 */
// Most of a fire's time is spent waiting for its exact time or for runs-service, so many run at once.
@Processor(QueueNames.SchedulerFires, { concurrency: 200 })
export class ScheduleFireProcessor extends WorkerHost {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly services: ServiceClient,
    private readonly failures: ScheduleFailures,
  ) {
    super();
  }

  async process(job: Job<ScheduleFireEvent>): Promise<void> {
    const fire = job.data;
    const early = Date.parse(fire.fire_time) - Date.now();
    if (early > 0) await sleep(early);
    // Read after the wait: a schedule paused or deleted meanwhile fires nothing.
    const schedule = await this.dataSource.manager.findOneBy(ScheduleEntity, { agentId: fire.agent_id });
    if (!schedule || schedule.paused) return;
    if (schedule.overlap === 'skip' && (await this.previousRunUnfinished(schedule))) return;
    try {
      const { run } = await this.services.request<RunResponse>(RunsPatterns.StartScheduledRun, fire);
      await this.dataSource.manager.update(ScheduleEntity, { agentId: fire.agent_id }, { activeRunId: run.run_id });
    } catch (error) {
      // A refusal (agent not deployed, deleted, …) counts as a failure; anything else is retried by BullMQ.
      if (error instanceof RemoteProblemError && error.problem.status < 500) {
        await this.failures.recordFailure(fire.agent_id);
        return;
      }
      throw error;
    }
  }

  /** The overlap rule asks runs-service, which owns runs, whether the last scheduled run is still going. */
  private async previousRunUnfinished(schedule: ScheduleEntity): Promise<boolean> {
    if (!schedule.activeRunId) return false;
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
}

import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { QueueNames, ScheduleFireEvent, parseJob } from '@aas/contracts';
import { InJobRequestContext, WORKER_LOCK } from '@aas/platform';
import { Job } from 'bullmq';
import { FireBatcher } from './fire-batcher';
import { FireMetrics } from './fire-metrics';
import { ScheduleFailures } from './schedule-failures';

/**
 * Hands each fire to the batcher, which starts it at its fire time with the
 * others due then. The job completes once the run is durably accepted (or the
 * fire is skipped or refused); a failed batch fails its jobs, which are retried.
 * A fire whose last attempt fails is recorded as a failed fire of its schedule
 * (failure count, auto-pause, last_error) before the job fails for good.
 */
// A job is held from when the ticker takes its fire (up to SCHEDULER_LOOKAHEAD_MS early) until its batch is
// started, so this bounds the fires one replica holds: a thousand schedules due in the same second fit.
@Processor(QueueNames.SchedulerFires, { concurrency: 1000, ...WORKER_LOCK })
export class ScheduleFireProcessor extends WorkerHost {
  private readonly logger = new Logger(ScheduleFireProcessor.name);

  constructor(
    private readonly batcher: FireBatcher,
    private readonly failures: ScheduleFailures,
    private readonly metrics: FireMetrics,
  ) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job): Promise<void> {
    const fire = this.validFire(job);
    try {
      await this.batcher.fire(fire);
    } catch (error) {
      if (!isLastAttempt(job)) {
        this.metrics.count('retried');
        throw error;
      }
      this.metrics.count('failed');
      this.logger.error({ agent_id: fire.agent_id, fire_time: fire.fire_time, err: error }, 'schedule fire failed for good');
      await this.failures.recordFailedFires([{ agentId: fire.agent_id, error: failedFireText(fire, error) }]);
      throw error;
    }
  }

  /** A malformed payload (written by another version) would fail the same way on every retry. */
  private validFire(job: Job): ScheduleFireEvent {
    try {
      return parseJob(QueueNames.SchedulerFires, job).data;
    } catch (error) {
      this.metrics.count('failed');
      this.logger.error({ job_id: job.id, error: (error as Error).message }, 'malformed schedule fire failed for good');
      throw error;
    }
  }
}

/** attemptsMade counts the attempts that failed before this one. */
function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

function failedFireText(fire: ScheduleFireEvent, error: unknown): string {
  return `the run of the fire at ${fire.fire_time} could not be started: ${error instanceof Error ? error.message : String(error)}`;
}


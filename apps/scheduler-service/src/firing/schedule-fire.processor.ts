import { Processor, WorkerHost } from '@nestjs/bullmq';
import { QueueNames, ScheduleFireEvent, StartScheduledRunMessage } from '@aas/contracts';
import { InJobRequestContext, WORKER_LOCK } from '@aas/platform';
import { flattenValidationErrors } from '@aas/problem-details';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { Job, UnrecoverableError } from 'bullmq';
import { FireBatcher } from './fire-batcher';
import { FireMetrics } from './fire-metrics';

/**
 * Hands each fire to the batcher, which starts it at its fire time with the
 * others due then. The job completes once the run is durably accepted (or the
 * fire is skipped or refused); a failed batch fails its jobs, which are retried.
 */
// A job is held from when the ticker takes its fire (up to SCHEDULER_LOOKAHEAD_MS early) until its batch is
// started, so this bounds the fires one replica holds: a thousand schedules due in the same second fit.
@Processor(QueueNames.SchedulerFires, { concurrency: 1000, ...WORKER_LOCK })
export class ScheduleFireProcessor extends WorkerHost {
  constructor(
    private readonly batcher: FireBatcher,
    private readonly metrics: FireMetrics,
  ) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job<ScheduleFireEvent>): Promise<void> {
    try {
      await this.batcher.fire(validFire(job.data));
    } catch (error) {
      this.metrics.count('failed');
      throw error;
    }
  }
}

/** A malformed payload (written by another version) would fail the same way on every retry. */
function validFire(data: ScheduleFireEvent): ScheduleFireEvent {
  const errors = validateSync(plainToInstance(StartScheduledRunMessage, data));
  if (errors.length > 0) {
    throw new UnrecoverableError(`malformed schedule fire: ${flattenValidationErrors(errors).map((e) => e.message).join('; ')}`);
  }
  return data;
}

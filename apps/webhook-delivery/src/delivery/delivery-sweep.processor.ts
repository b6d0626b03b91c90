import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { schedulePeriodicJob } from '@aas/platform';
import { Job, Queue } from 'bullmq';
import { DeliverySweep, OVERDUE_MARGIN_MS } from './delivery-sweep';

/** webhook-delivery's periodic upkeep, on a queue of its own that only webhook-delivery replicas serve. */
export const WEBHOOKS_MAINTENANCE_QUEUE = 'webhooks-maintenance';
export const SWEEP_LOST_DELIVERIES_JOB = 'sweep-lost-deliveries';
export const SWEEP_EVERY_MS = 5 * 60_000;

/**
 * Scheduled once however many replicas run (schedulePeriodicJob). A sweep cut short
 * (shutdown, a killed replica) is simply done again by the next one: it only adds jobs that are missing.
 */
@Processor(WEBHOOKS_MAINTENANCE_QUEUE)
export class DeliverySweepProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(DeliverySweepProcessor.name);

  constructor(
    private readonly sweep: DeliverySweep,
    @InjectQueue(WEBHOOKS_MAINTENANCE_QUEUE) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await schedulePeriodicJob(this.queue, SWEEP_LOST_DELIVERIES_JOB, SWEEP_EVERY_MS, this.logger);
  }

  async process(job: Job): Promise<number> {
    if (job.name !== SWEEP_LOST_DELIVERIES_JOB) return 0;
    // On shutdown the sweep stops after its current batch rather than hold up the drain.
    const requeued = await this.sweep.requeueLost(() => this.worker.closing !== undefined);
    if (requeued > 0) {
      this.logger.warn(`queued again ${requeued} pending deliveries overdue by more than ${OVERDUE_MARGIN_MS / 60_000} minutes that had no job`);
    }
    return requeued;
  }
}

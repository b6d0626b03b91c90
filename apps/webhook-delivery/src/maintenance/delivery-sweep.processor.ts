import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { JobNames, QueueNames, parseJob } from '@aas/contracts';
import { schedulePeriodicJob } from '@aas/platform';
import { Job, Queue } from 'bullmq';
import { DeliverySweep, OVERDUE_MARGIN_MS } from './delivery-sweep';

export const SWEEP_EVERY_MS = 5 * 60_000;

/**
 * webhook-delivery's periodic upkeep, on a queue of its own that only webhook-delivery replicas serve.
 * Scheduled once however many replicas run (schedulePeriodicJob). A sweep cut short
 * (shutdown, a killed replica) is simply done again by the next one: it only adds jobs that are missing.
 */
@Processor(QueueNames.WebhooksMaintenance)
export class DeliverySweepProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(DeliverySweepProcessor.name);

  constructor(
    private readonly sweep: DeliverySweep,
    @InjectQueue(QueueNames.WebhooksMaintenance) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await schedulePeriodicJob(this.queue, JobNames.SweepLostDeliveries, SWEEP_EVERY_MS, this.logger);
  }

  async process(job: Job): Promise<number> {
    parseJob(QueueNames.WebhooksMaintenance, job);
    // On shutdown the sweep stops after its current batch rather than hold up the drain.
    const requeued = await this.sweep.requeueLost(() => this.worker.closing !== undefined);
    if (requeued > 0) {
      this.logger.warn(`queued again ${requeued} pending deliveries overdue by more than ${OVERDUE_MARGIN_MS / 60_000} minutes that had no job`);
    }
    return requeued;
  }
}

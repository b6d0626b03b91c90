import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger } from '@nestjs/common';
import { QueueNames, parseJob } from '@aas/contracts';
import { InJobRequestContext, WORKER_LOCK } from '@aas/platform';
import { Job } from 'bullmq';
import { isUUID } from 'class-validator';
import { BulkActionRunner } from './bulk-action-runner';
import { BulkActionStore } from './bulk-action.store';

export const BULK_ACTION_CHUNK_SIZE = Symbol('BULK_ACTION_CHUNK_SIZE');

/**
 * runs-bulk-actions: one job per chunk of an action, put on the queue by the outbox (durable, once per
 * chunk). The queue is first in, first out, and each chunk's successor joins at the back: the active
 * actions take turns, so one user's huge action does not hold up another's.
 */
@Processor(QueueNames.RunsBulkActions, { ...WORKER_LOCK })
export class BulkActionsProcessor extends WorkerHost {
  private readonly logger = new Logger(BulkActionsProcessor.name);

  constructor(
    private readonly runner: BulkActionRunner,
    private readonly store: BulkActionStore,
    @Inject(BULK_ACTION_CHUNK_SIZE) private readonly chunkSize: number,
  ) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job): Promise<number> {
    const { data } = parseJob(QueueNames.RunsBulkActions, job);
    // On shutdown a chunk stops after its current run; its successor picks up the rest.
    return this.runner.runChunk(data, this.chunkSize, () => this.worker.closing !== undefined);
  }

  /** Every attempt of a chunk failed (an outage that outlasted the retries): the action ends failed rather than stay running. */
  @OnWorkerEvent('failed')
  async onFailed(job: Job | undefined): Promise<void> {
    if (!job || job.attemptsMade < (job.opts.attempts ?? 1)) return;
    // A job refused by parseJob may carry anything: only an action id is looked up.
    const id: unknown = (job.data as { bulk_action_id?: unknown }).bulk_action_id;
    if (typeof id !== 'string' || !isUUID(id)) return;
    this.logger.error(`bulk action ${id}: chunk ${job.id} failed ${job.attemptsMade} times (${job.failedReason}); the action ends failed`);
    await this.store.fail(id);
  }
}

import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { AgentsPatterns, DeleteRunsMessage, DeleteRunsQuery, JobNames, QueueNames, RunDeletionResponse } from '@aas/contracts';
import { ServiceClient, Transactions, afterCommit } from '@aas/platform';
import { TooManyRequestsError } from '@aas/problem-details';
import { Queue } from 'bullmq';
import { PurgeTotals, purgeInBatches } from './purge-batches';
import { RetentionStore, RunDeletion } from './retention.store';
import { RunRetention } from './run-retention';

/** A user whose deletion is still going is told to come back this much later. */
export const DELETION_BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * DELETE /v1/runs (docs/retention.md): the caller's finished runs that GET /v1/runs lists under the same
 * filters are counted and the deletion stored, in one transaction, and the request answered; the
 * retention purge's batches then delete them (purgeRequested). One deletion per user at a time.
 */
@Injectable()
export class RunDeletions {
  private readonly logger = new Logger(RunDeletions.name);

  constructor(
    private readonly store: RetentionStore,
    private readonly transactions: Transactions,
    private readonly services: ServiceClient,
    private readonly retention: RunRetention,
    @InjectQueue(QueueNames.RunsMaintenance) private readonly queue: Queue,
  ) {}

  async request(message: DeleteRunsMessage): Promise<RunDeletionResponse> {
    const userId = message.user_id;
    const pending = await this.store.findDeletion(userId);
    if (pending) throw busy(pending);
    const { agents } = await this.services.request(AgentsPatterns.ListLiveAgents, {
      user_id: userId,
      workspace_id: message.filter_workspace_id,
      agent_id: message.filter_agent_id,
    });
    if (agents.length === 0) return { matched_runs: 0 };
    const filters = filtersOf(message);
    const matched = await this.transactions.run(async (tx) => {
      const { matched, now } = await this.store.countDeletable(tx, userId, agents, filters);
      if (matched === 0) return 0;
      if (!(await this.store.insertDeletion(tx, { userId, agents, filters, finishedBefore: now, matched }))) return undefined;
      // At once rather than at the next periodic purge; a job lost here is done by that purge anyway.
      afterCommit(tx, () => this.queue.add(JobNames.PurgeRequestedRuns, {}, { removeOnComplete: 10, removeOnFail: 50 }).then(() => undefined));
      return matched;
    });
    if (matched === undefined) throw busy(await this.store.findDeletion(userId));
    return { matched_runs: matched };
  }

  /**
   * Every stored deletion, oldest first, in batches. A deletion is done once nothing it matches is left; one
   * whose last runs were held by another transaction (skipped) is left for the next purge.
   */
  async purgeRequested(stop: () => boolean = () => false): Promise<PurgeTotals> {
    const totals: PurgeTotals = { runs: 0, events: 0 };
    const pacing = this.retention.pacing(stop);
    for (const deletion of await this.store.pendingDeletions()) {
      const drained = await purgeInBatches(() => this.transactions.run((tx) => this.store.deletionBatch(tx, deletion, pacing.batchSize)), pacing, totals);
      if (drained && !(await this.store.deletionRemains(deletion))) await this.store.finishDeletion(deletion);
      if (stop()) break;
    }
    if (totals.runs > 0) this.logger.log(`deleted ${totals.runs} runs, with ${totals.events} events, that users asked to delete`);
    return totals;
  }
}

/** The request's filters as stored with the deletion (the user is the deletion's own). */
function filtersOf(message: DeleteRunsMessage): DeleteRunsQuery {
  const { user_id: _userId, ...filters } = message;
  return filters;
}

function busy(pending: RunDeletion | undefined): TooManyRequestsError {
  const progress = pending ? ` (${pending.deleted} of ${pending.matched} runs deleted)` : '';
  return new TooManyRequestsError(
    `A deletion of your runs is still in progress${progress}; one runs at a time. Retry after ${DELETION_BUSY_RETRY_AFTER_SECONDS} s`,
    DELETION_BUSY_RETRY_AFTER_SECONDS,
  );
}

import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AgentsPatterns } from '@aas/contracts';
import { ServiceClient, Transactions } from '@aas/platform';
import { RunsEnv } from '../config/runs.env';
import { BatchPacing, PurgeTotals, purgeInBatches } from './purge-batches';
import { purgeScopes, RetentionOverride } from './purge-scopes';
import { RetentionStore } from './retention.store';

export type { PurgeTotals } from './purge-batches';

/**
 * Deletes the finished runs past their retention (docs/retention.md), in short transactions of
 * RUN_PURGE_BATCH_SIZE runs with a pause between them, so that it never holds locks for long nor takes
 * the database from the requests. It runs as one job across replicas (RunsMaintenanceProcessor).
 */
@Injectable()
export class RunRetention {
  private readonly logger = new Logger(RunRetention.name);

  constructor(
    private readonly store: RetentionStore,
    private readonly transactions: Transactions,
    private readonly config: ConfigService<RunsEnv, true>,
    private readonly services: ServiceClient,
  ) {}

  /**
   * Every run due, until done or `stop` says so (asked between batches). The workspaces' own retentions
   * are asked of agents-service first; if it does not answer, nothing is purged (the job fails and the
   * next one tries again), since the default could be shorter than a workspace's.
   */
  async purgeDue(stop: () => boolean = () => false): Promise<PurgeTotals> {
    const overrides = await this.workspaceRetentions();
    const totals: PurgeTotals = { runs: 0, events: 0 };
    const pacing = this.pacing(stop);
    for (const scope of purgeScopes(this.config.get('RUN_RETENTION_DAYS', { infer: true }), overrides)) {
      await purgeInBatches(() => this.transactions.run((tx) => this.store.purgeBatch(tx, scope, pacing.batchSize)), pacing, totals);
      if (stop()) break;
    }
    if (totals.runs > 0) this.logger.log(`purged ${totals.runs} finished runs past their retention, with ${totals.events} events`);
    return totals;
  }

  /** RUN_PURGE_BATCH_SIZE and RUN_PURGE_PAUSE_MS, for the retention purge and deletes by filter alike. */
  pacing(stop: () => boolean): BatchPacing {
    return {
      batchSize: this.config.get('RUN_PURGE_BATCH_SIZE', { infer: true }),
      pauseMs: this.config.get('RUN_PURGE_PAUSE_MS', { infer: true }),
      stop,
    };
  }

  private async workspaceRetentions(): Promise<RetentionOverride[]> {
    const { retentions } = await this.services.request(AgentsPatterns.RunRetentions, {});
    return retentions.map((r) => ({ agentIds: r.agent_ids, days: r.days }));
  }
}

import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AgentsPatterns } from '@aas/contracts';
import { ServiceClient, Transactions } from '@aas/platform';
import { setTimeout as sleep } from 'node:timers/promises';
import { RunsEnv } from '../config/runs.env';
import { purgeScopes, RetentionOverride } from './purge-scopes';
import { PurgeScope, RetentionStore } from './retention.store';

/** What a purge deleted. */
export interface PurgeTotals {
  runs: number;
  events: number;
}

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
    for (const scope of purgeScopes(this.config.get('RUN_RETENTION_DAYS', { infer: true }), overrides)) {
      await this.purgeScope(scope, totals, stop);
      if (stop()) break;
    }
    if (totals.runs > 0) this.logger.log(`purged ${totals.runs} finished runs past their retention, with ${totals.events} events`);
    return totals;
  }

  private async workspaceRetentions(): Promise<RetentionOverride[]> {
    const { retentions } = await this.services.request(AgentsPatterns.RunRetentions, {});
    return retentions.map((r) => ({ agentIds: r.agent_ids, days: r.days }));
  }

  private async purgeScope(scope: PurgeScope, totals: PurgeTotals, stop: () => boolean): Promise<void> {
    const batchSize = this.config.get('RUN_PURGE_BATCH_SIZE', { infer: true });
    const pauseMs = this.config.get('RUN_PURGE_PAUSE_MS', { infer: true });
    for (;;) {
      const batch = await this.transactions.run((tx) => this.store.purgeBatch(tx, scope, batchSize));
      totals.runs += batch.runIds.length;
      totals.events += batch.events;
      if (batch.runIds.length < batchSize || stop()) return;
      if (pauseMs > 0) await sleep(pauseMs);
    }
  }
}

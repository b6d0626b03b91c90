import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AgentDeletedEvent } from '@aas/contracts';
import { Transaction, managerOf } from '@aas/platform';
import { DataSource } from 'typeorm';
import { deleteRunsOfDeletedAgent, purgeDeletedGenerations } from '../database/agent-generations';
import { MaintenanceStore } from './maintenance.store';

/**
 * A chain's count is kept this long after its last counted run: past the 27.6 hours a webhook delivery is
 * retried, so a delivery refused for its chain is refused on every retry, and past any run's wait for
 * admission that matters in practice. A chain that starts a run after that counts from 0 again.
 */
export const RUN_CHAIN_IDLE_DAYS = 7;

/** Keys deleted per statement: each statement is a short transaction that locks few rows. */
export const PURGE_BATCH_SIZE = 10_000;

/**
 * runs-service's upkeep statements (maintenance.store.ts). The purge deletes idempotency keys older
 * than 24 hours, the API's and the schedules' alike. The API promises a key's run for 24 hours. A schedule key
 * (`schedule:<agent>:<fire ms>`) only stops a fire delivered again from making a
 * second run, and a fire's job is retried for minutes (10 attempts, backoff from
 * 1 s doubling), not a day. Rows are taken with SKIP LOCKED: a purge never waits
 * for a start that holds a key, nor for another replica's purge.
 */
@Injectable()
export class PostgresMaintenanceStore extends MaintenanceStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  deleteRunsOfDeletedAgent(tx: Transaction, event: AgentDeletedEvent): Promise<string[]> {
    return deleteRunsOfDeletedAgent(managerOf(this.dataSource, tx), event);
  }

  purgeDeletedGenerations(): Promise<number> {
    return purgeDeletedGenerations(this.dataSource.manager);
  }

  async purgeExpiredKeys(stop: () => boolean = () => false, batchSize = PURGE_BATCH_SIZE): Promise<number> {
    let purged = 0;
    for (;;) {
      const [, deleted]: [unknown, number] = await this.dataSource.query(
        `DELETE FROM run_idempotency_keys
          WHERE (user_id, key) IN (
            SELECT user_id, key FROM run_idempotency_keys
             WHERE created_at < now() - interval '24 hours'
             LIMIT $1
               FOR UPDATE SKIP LOCKED)`,
        [batchSize],
      );
      purged += deleted;
      if (deleted < batchSize || stop()) return purged;
    }
  }

  async purgeIdleChains(stop: () => boolean = () => false, batchSize = PURGE_BATCH_SIZE): Promise<number> {
    let purged = 0;
    for (;;) {
      const [, deleted]: [unknown, number] = await this.dataSource.query(
        `DELETE FROM run_chains
          WHERE root_run_id IN (
            SELECT root_run_id FROM run_chains WHERE updated_at < now() - make_interval(days => $2) LIMIT $1 FOR UPDATE SKIP LOCKED)`,
        [batchSize, RUN_CHAIN_IDLE_DAYS],
      );
      purged += deleted;
      if (deleted < batchSize || stop()) return purged;
    }
  }
}

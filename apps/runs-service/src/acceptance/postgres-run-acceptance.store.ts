import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ClaimOutcome, GenerationClaim, claimAgentGenerations } from '../database/agent-generations';
import { RUN_ACCEPTANCE } from '../database/run-acceptance-database';
import { RunEntity } from '../database/run.entity';
import { AcceptanceTransaction, ClaimedKey, RunAcceptanceStore, ownedKey, scheduledForKey } from './run-acceptance.store';
import { Transaction, transactionOn } from '@aas/platform';

/** Transactions of accepting runs, on the acceptance connections (database/run-acceptance-database.ts). */
@Injectable()
export class PostgresRunAcceptanceStore extends RunAcceptanceStore {
  constructor(@InjectDataSource(RUN_ACCEPTANCE) private readonly dataSource: DataSource) {
    super();
  }

  inTransaction<T>(work: (tx: AcceptanceTransaction) => Promise<T>): Promise<T> {
    return transactionOn(this.dataSource, (manager, tx) => work(new PostgresAcceptanceTransaction(manager, tx)));
  }
}

/** The statements of accepting runs, inside one transaction. */
class PostgresAcceptanceTransaction implements AcceptanceTransaction {
  constructor(
    private readonly manager: EntityManager,
    readonly tx: Transaction,
  ) {}

  /**
   * Takes each key for its run, in key order so that two transactions holding the
   * same keys wait for each other rather than deadlock. A key older than 24 hours
   * is free again even before the purge has removed it. Answers the earlier run of
   * each key that was taken before.
   */
  async claimKeys(userIds: string[], claims: ClaimedKey[]): Promise<Map<string, ClaimedKey>> {
    if (claims.length === 0) return new Map();
    // One order of the key rows for every transaction (key, then user), so two batches cannot deadlock on them.
    const sortKey = (i: number) => `${claims[i].key}\u0000${userIds[i]}`;
    const order = claims.map((_, i) => i).sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
    const users = order.map((i) => userIds[i]);
    const keys = order.map((i) => claims[i].key);
    await this.manager.query(
      `DELETE FROM run_idempotency_keys
        WHERE (user_id, key) IN (SELECT * FROM unnest($1::uuid[], $2::text[])) AND created_at < now() - interval '24 hours'`,
      [users, keys],
    );
    const claimed: { user_id: string; key: string }[] = await this.manager.query(
      `INSERT INTO run_idempotency_keys (user_id, key, agent_id, run_id)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::uuid[])
       ON CONFLICT (user_id, key) DO NOTHING RETURNING user_id, key`,
      [users, keys, order.map((i) => claims[i].agentId), order.map((i) => claims[i].runId)],
    );
    const taken = new Set(claimed.map((row) => ownedKey(row.user_id, row.key)));
    const retried = order.filter((i) => !taken.has(ownedKey(userIds[i], claims[i].key)));
    if (retried.length === 0) return new Map();
    const rows: Array<{ user_id: string; key: string; agent_id: string; run_id: string }> = await this.manager.query(
      `SELECT user_id, key, agent_id, run_id FROM run_idempotency_keys WHERE (user_id, key) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`,
      [retried.map((i) => userIds[i]), retried.map((i) => claims[i].key)],
    );
    return new Map(rows.map((row) => [ownedKey(row.user_id, row.key), { key: row.key, agentId: row.agent_id, runId: row.run_id }]));
  }

  async releaseKeys(userIds: string[], keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.manager.query(`DELETE FROM run_idempotency_keys WHERE (user_id, key) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`, [userIds, keys]);
  }

  /**
   * A chain's row is made at its first counted run and locked (FOR UPDATE, in root order, like the keys)
   * until the commit, so two transactions counting one chain take turns on every replica.
   */
  async chainRunsStarted(rootRunIds: string[]): Promise<Map<string, number>> {
    if (rootRunIds.length === 0) return new Map();
    const roots = [...new Set(rootRunIds)].sort();
    await this.manager.query(
      `INSERT INTO run_chains (root_run_id, started_runs) SELECT unnest($1::uuid[]), 0 ON CONFLICT (root_run_id) DO NOTHING`,
      [roots],
    );
    const rows: Array<{ root_run_id: string; started_runs: number }> = await this.manager.query(
      `SELECT root_run_id, started_runs FROM run_chains WHERE root_run_id = ANY($1::uuid[]) ORDER BY root_run_id FOR UPDATE`,
      [roots],
    );
    return new Map(rows.map((row) => [row.root_run_id, row.started_runs]));
  }

  async addChainRuns(runs: Map<string, number>): Promise<void> {
    if (runs.size === 0) return;
    await this.manager.query(
      `UPDATE run_chains c SET started_runs = c.started_runs + v.runs, updated_at = now()
         FROM unnest($1::uuid[], $2::int[]) AS v(root_run_id, runs) WHERE c.root_run_id = v.root_run_id`,
      [[...runs.keys()], [...runs.values()]],
    );
  }

  /** Each agent generation takes its id over (deleting an older one's runs), or is refused: database/agent-generations.ts. */
  claimGenerations(claims: GenerationClaim[]): Promise<ClaimOutcome> {
    return claimAgentGenerations(this.manager, claims);
  }

  /** The runs already made for these (agent, fire time) pairs, by `scheduledForKey`. */
  async findScheduledRuns(pairs: Array<{ agentId: string; dueAt: Date }>): Promise<Map<string, string>> {
    if (pairs.length === 0) return new Map();
    const rows: Array<{ id: string; agent_id: string; scheduled_for: Date }> = await this.manager.query(
      `SELECT id, agent_id, scheduled_for FROM runs
        WHERE scheduled_for IS NOT NULL AND (agent_id, scheduled_for) IN (SELECT * FROM unnest($1::uuid[], $2::timestamptz[]))`,
      [pairs.map((p) => p.agentId), pairs.map((p) => p.dueAt.toISOString())],
    );
    return new Map(rows.map((row) => [scheduledForKey(row.agent_id, row.scheduled_for), row.id]));
  }

  /** The next `count` run numbers of each agent: the first number of each agent's block. */
  async takeRunNumbers(counts: Map<string, number>): Promise<Map<string, number>> {
    if (counts.size === 0) return new Map();
    // Agent order, for the same reason as the keys: counter rows are locked until commit.
    const agentIds = [...counts.keys()].sort();
    const rows: Array<{ agent_id: string; last_run_number: number }> = await this.manager.query(
      `INSERT INTO agent_run_counters (agent_id, last_run_number)
       SELECT * FROM unnest($1::uuid[], $2::int[])
       ON CONFLICT (agent_id) DO UPDATE SET last_run_number = agent_run_counters.last_run_number + EXCLUDED.last_run_number
       RETURNING agent_id, last_run_number`,
      [agentIds, agentIds.map((id) => counts.get(id)!)],
    );
    return new Map(rows.map((row) => [row.agent_id, row.last_run_number - counts.get(row.agent_id)! + 1]));
  }

  /** Stores the runs, waiting for admission. */
  async insertWaiting(runs: RunEntity[]): Promise<void> {
    if (runs.length === 0) return;
    await this.manager.createQueryBuilder().insert().into(RunEntity).values(runs).updateEntity(false).execute();
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ListRunsMessage } from '@aas/contracts';
import { DataSource, SelectQueryBuilder } from 'typeorm';
import { RunEntity } from './run.entity';
import { runListFiltersKey } from './run-list-filters-key';

/** Totals are forgotten this long after they were counted (or once their agent's runs change). */
export const RUN_LIST_TOTAL_TTL = '1 hour';
/** Totals deleted per statement by the purge: each statement is a short transaction. */
export const RUN_LIST_TOTAL_PURGE_BATCH = 10_000;

/**
 * Exact run list totals that have to count the runs (filter_goal, start times),
 * remembered per agent, user and filters with the generation of the agent's
 * runs they were counted at, and used only while that generation lasts
 * (migration RunListTotals1763930000000). A repeat costs one indexed read
 * instead of a count of every matching run.
 */
@Injectable()
export class RunListTotals {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The total of `counted` (the list's filtered query), remembered or counted now. */
  async total(message: ListRunsMessage, counted: SelectQueryBuilder<RunEntity>): Promise<number> {
    const key = [message.agent_id, message.user_id, runListFiltersKey(message)];
    const [remembered] = await this.dataSource.query(
      `SELECT t.total FROM run_list_totals t JOIN run_list_generations g ON g.agent_id = t.agent_id AND g.generation = t.generation
        WHERE t.agent_id = $1 AND t.user_id = $2 AND t.filters = $3`,
      key,
    );
    return Number(remembered?.total ?? (await this.countAndRemember(key, counted)));
  }

  /**
   * Counts in one statement that also reads the generation, so both come from
   * one snapshot: a total is stored with the generation it belongs to. An agent
   * without a generation has no runs (none was ever inserted), so nothing is
   * stored for it. A total counted at an older generation never replaces a newer one.
   */
  private async countAndRemember(key: unknown[], counted: SelectQueryBuilder<RunEntity>): Promise<string> {
    const [count, parameters] = counted.select('count(*)').getQueryAndParameters();
    const [agent, user, filters] = [1, 2, 3].map((n) => `$${parameters.length + n}`);
    const [row] = await this.dataSource.query(
      `WITH counted AS (
         SELECT (SELECT generation FROM run_list_generations WHERE agent_id = ${agent}) AS generation, (${count}) AS total
       ), remembered AS (
         INSERT INTO run_list_totals AS t (agent_id, user_id, filters, generation, total)
         SELECT ${agent}, ${user}, ${filters}, generation, total FROM counted WHERE generation IS NOT NULL
         ON CONFLICT (agent_id, user_id, filters) DO UPDATE
           SET generation = excluded.generation, total = excluded.total, counted_at = now()
           WHERE t.generation <= excluded.generation
       )
       SELECT total FROM counted`,
      [...parameters, ...key],
    );
    return row.total;
  }

  /**
   * Deletes totals counted over RUN_LIST_TOTAL_TTL ago or left behind by their
   * agent's generation, in batches until one comes back short or `stop` says so.
   */
  async purgeStale(stop: () => boolean = () => false, batchSize = RUN_LIST_TOTAL_PURGE_BATCH): Promise<number> {
    let purged = 0;
    for (;;) {
      const [, deleted]: [unknown, number] = await this.dataSource.query(
        `DELETE FROM run_list_totals
          WHERE (agent_id, user_id, filters) IN (
            SELECT t.agent_id, t.user_id, t.filters FROM run_list_totals t
              LEFT JOIN run_list_generations g ON g.agent_id = t.agent_id
             WHERE t.counted_at < now() - $2::interval OR g.generation IS DISTINCT FROM t.generation
             LIMIT $1
               FOR UPDATE OF t SKIP LOCKED)`,
        [batchSize, RUN_LIST_TOTAL_TTL],
      );
      purged += deleted;
      if (deleted < batchSize || stop()) return purged;
    }
  }

  /** An agent's totals and generation, when the agent is deleted with its runs. */
  async forgetAgent(agentId: string, manager = this.dataSource.manager): Promise<void> {
    await manager.query('DELETE FROM run_list_totals WHERE agent_id = $1', [agentId]);
    await manager.query('DELETE FROM run_list_generations WHERE agent_id = $1', [agentId]);
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ListRunsMessage, ListRunsQuery, LiveAgent } from '@aas/contracts';
import { entityFromRow } from '@aas/platform';
import { isUUID } from 'class-validator';
import { Brackets, DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { RunEntity } from '../database/run.entity';
import { runListCountAcrossAgentsQuery, runListCountQuery, runModeOf } from './run-list-count';
import { runListFiltersKey } from './run-list-filters-key';
import { RunListStore, RunTotal } from './run-list.store';

/**
 * GET /v1/runs over at most this many agents (one agent, a workspace, a small installation) reads each
 * agent's newest runs from the agent's own index and merges them, while that reads at most
 * PER_AGENT_MERGE_MAX_ROWS index rows (agents × rows up to the page's end); otherwise it walks the
 * user's index, which is cheaper when most of the user's runs match (bench:runs-across-agents).
 */
export const PER_AGENT_MERGE_MAX_AGENTS = 20;
export const PER_AGENT_MERGE_MAX_ROWS = 20_000;
/** Totals are forgotten this long after they were counted (or once their agent's runs change). */
export const RUN_LIST_TOTAL_TTL = '1 hour';
/** Totals deleted per statement by the purge: each statement is a short transaction. */
export const RUN_LIST_TOTAL_PURGE_BATCH = 10_000;

/**
 * The run list's statements (run-list.store.ts). Totals come from run_list_counts when the filters
 * allow; otherwise from exact totals that have to count the runs (filter_goal, start times),
 * remembered per agent, user and filters with the generation of the agent's runs they were counted
 * at, and used only while that generation lasts (migration RunListTotals1763930000000). A repeat
 * costs one indexed read instead of a count of every matching run.
 */
@Injectable()
export class PostgresRunListStore extends RunListStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  page(message: ListRunsMessage, offset: number, limit: number): Promise<RunEntity[]> {
    return this.filtered(message).orderBy('r.started_at', 'DESC').addOrderBy('r.run_number', 'DESC').offset(offset).limit(limit).getMany();
  }

  /**
   * From run_list_counts when the filters allow; otherwise count(*) of the
   * runs (not TypeORM's getCount, whose COUNT(DISTINCT id) sorts every matching
   * id), remembered until the agent's runs change.
   */
  async count(message: ListRunsMessage): Promise<number> {
    const fromCounts = runListCountQuery(message);
    if (!fromCounts) return this.rememberedTotal(message, this.filtered(message));
    const [row] = await this.dataSource.query(fromCounts.sql, fromCounts.parameters);
    return Number(row?.total ?? 0);
  }

  pageAcrossAgents(userId: string, agents: LiveAgent[], query: ListRunsQuery, offset: number, limit: number): Promise<RunEntity[]> {
    const merge = agents.length <= PER_AGENT_MERGE_MAX_AGENTS && agents.length * (offset + limit) <= PER_AGENT_MERGE_MAX_ROWS;
    if (merge) return this.mergedPerAgent(userId, agents, query, offset, limit);
    return this.acrossAgents(userId, agents, query)
      .orderBy('r.started_at', 'DESC')
      .addOrderBy('r.run_number', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .offset(offset)
      .limit(limit)
      .getMany();
  }

  async countAcrossAgents(userId: string, agents: LiveAgent[], query: ListRunsQuery, exactUpTo: number): Promise<RunTotal> {
    const fromCounts = runListCountAcrossAgentsQuery(query, userId, agents.map((a) => a.agent_id));
    if (fromCounts && !(await this.holdsEarlierGenerations(agents))) {
      const [row] = await this.dataSource.query(fromCounts.sql, fromCounts.parameters);
      return { total: Number(row.total), estimate: false };
    }
    const [matching, parameters] = this.acrossAgents(userId, agents, query).select('1').getQueryAndParameters();
    const [{ total }] = await this.dataSource.query(`SELECT count(*)::int AS total FROM (${matching} LIMIT ${exactUpTo + 1}) m`, parameters);
    if (total <= exactUpTo) return { total, estimate: false };
    const [{ 'QUERY PLAN': [plan] }] = await this.dataSource.query(`EXPLAIN (FORMAT JSON) ${matching}`, parameters);
    return { total: Math.max(exactUpTo + 1, Math.round(plan.Plan['Plan Rows'])), estimate: true };
  }

  matchingRunsQuery(userId: string, agents: LiveAgent[], query: ListRunsQuery): { sql: string; parameters: unknown[] } {
    const [sql, parameters] = this.acrossAgents(userId, agents, query)
      .select('r.id', 'id')
      .addSelect('r.agent_id', 'agent_id')
      .orderBy('r.started_at', 'ASC')
      .addOrderBy('r.run_number', 'ASC')
      .getQueryAndParameters();
    return { sql, parameters };
  }

  /**
   * A few agents' runs, or the first pages: each agent's newest matching runs up to the page's end
   * (runs_list_idx and its per-filter siblings), merged, then the page's rows read by id. Walking the
   * user's index instead would step over every run of the agents left out.
   */
  private async mergedPerAgent(userId: string, agents: LiveAgent[], query: ListRunsQuery, offset: number, limit: number): Promise<RunEntity[]> {
    const newest = this.dataSource.manager
      .createQueryBuilder(RunEntity, 'r')
      .select('r.id', 'id')
      .addSelect('r.started_at', 'started_at')
      .addSelect('r.run_number', 'run_number')
      .where('r.agent_id = live.agent_id AND r.user_id = :userId', { userId })
      .andWhere('(r.agent_generation IS NULL OR r.agent_generation = live.generation)');
    withFilters(newest, query).orderBy('r.started_at', 'DESC').addOrderBy('r.run_number', 'DESC').limit(offset + limit);
    const [perAgent, parameters] = newest.getQueryAndParameters();
    const [ids, generations] = [parameters.length + 1, parameters.length + 2];
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT runs.* FROM (
         SELECT n.id, n.started_at, n.run_number
           FROM unnest($${ids}::uuid[], $${generations}::bigint[]) AS live(agent_id, generation)
           CROSS JOIN LATERAL (${perAgent}) n
          ORDER BY n.started_at DESC, n.run_number DESC, n.id DESC OFFSET ${offset} LIMIT ${limit}
       ) page JOIN runs USING (id)
       ORDER BY page.started_at DESC, page.run_number DESC, page.id DESC`,
      [...parameters, agents.map((a) => a.agent_id), agents.map((a) => a.generation)],
    );
    return rows.map((row) => entityFromRow(this.dataSource, RunEntity, row));
  }

  /**
   * Whether runs of an earlier agent that had one of these ids are still here (deleted, their cleanup
   * pending): the kept counts, which do not tell generations apart, would count them.
   */
  private async holdsEarlierGenerations(agents: LiveAgent[]): Promise<boolean> {
    const [{ held }] = await this.dataSource.query(
      `SELECT EXISTS (
         SELECT 1 FROM agent_generations g JOIN unnest($1::uuid[], $2::bigint[]) AS live(agent_id, generation) USING (agent_id)
          WHERE g.generation <> live.generation) AS held`,
      [agents.map((a) => a.agent_id), agents.map((a) => a.generation)],
    );
    return held;
  }

  /**
   * Deletes totals counted over RUN_LIST_TOTAL_TTL ago or left behind by their
   * agent's generation, in batches until one comes back short or `stop` says so.
   */
  async purgeStaleTotals(stop: () => boolean = () => false, batchSize = RUN_LIST_TOTAL_PURGE_BATCH): Promise<number> {
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

  /** The total of `counted` (the list's filtered query), remembered or counted now. */
  private async rememberedTotal(message: ListRunsMessage, counted: SelectQueryBuilder<RunEntity>): Promise<number> {
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

  private filtered(message: ListRunsMessage): SelectQueryBuilder<RunEntity> {
    const q = this.dataSource.manager
      .createQueryBuilder(RunEntity, 'r')
      .where('r.agent_id = :agentId AND r.user_id = :userId', { agentId: message.agent_id, userId: message.user_id });
    return withFilters(q, message);
  }

  private acrossAgents(userId: string, agents: LiveAgent[], query: ListRunsQuery): SelectQueryBuilder<RunEntity> {
    return runsAcrossAgents(this.dataSource.manager, userId, agents, query);
  }
}

/**
 * GET /v1/runs's runs (`r`): each agent's runs of its live generation (a run without one predates
 * generations), under the list's filters; DELETE /v1/runs deletes the finished ones (retention/).
 */
export function runsAcrossAgents(manager: EntityManager, userId: string, agents: LiveAgent[], query: ListRunsQuery): SelectQueryBuilder<RunEntity> {
  const q = manager
    .createQueryBuilder(RunEntity, 'r')
    .where('r.user_id = :userId AND r.agent_id = ANY(:agentIds::uuid[])', { userId, agentIds: agents.map((a) => a.agent_id) })
    .andWhere(
      '(r.agent_generation IS NULL OR (r.agent_id, r.agent_generation) IN (SELECT * FROM unnest(:agentIds::uuid[], :generations::bigint[])))',
      { generations: agents.map((a) => a.generation) },
    );
  return withFilters(q, query);
}

function withFilters(q: SelectQueryBuilder<RunEntity>, message: ListRunsQuery): SelectQueryBuilder<RunEntity> {
  if (message.filter_status === 'finished') q.andWhere('r.is_finished');
  else if (message.filter_status) q.andWhere('r.status = :status', { status: message.filter_status });
  if (message.filter_run_id !== undefined) {
    if (!isUUID(message.filter_run_id)) q.andWhere('false');
    else q.andWhere('r.id = :runId', { runId: message.filter_run_id });
  }
  if (message.filter_started_after) q.andWhere('r.started_at >= :after', { after: message.filter_started_after });
  if (message.filter_started_before) q.andWhere('r.started_at <= :before', { before: message.filter_started_before });
  if (message.filter_policy_type) q.andWhere('r.policy_type = :policyType', { policyType: message.filter_policy_type });
  if (message.filter_trigger_kind) q.andWhere('r.trigger_kind = :triggerKind', { triggerKind: message.filter_trigger_kind });
  if (message.filter_replay_of) q.andWhere('r.replay_of = :replayOf', { replayOf: message.filter_replay_of });
  if (message.filter_source_run_id) q.andWhere('r.source_run_id = :sourceRunId', { sourceRunId: message.filter_source_run_id });
  if (message.filter_policy_group) q.andWhere('r.run_mode = :mode', { mode: runModeOf(message.filter_policy_group) });
  if (message.filter_user_email) q.andWhere('lower(r.user_email) = lower(:email)', { email: message.filter_user_email });
  if (message.filter_goal) {
    q.andWhere(new Brackets((b) => b.where(`r.goal ILIKE :goal ESCAPE '\\'`, { goal: `%${escapeLike(message.filter_goal!)}%` })));
  }
  return q;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

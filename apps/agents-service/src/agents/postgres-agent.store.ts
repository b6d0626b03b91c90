import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AgentDeletedEvent, EventNames } from '@aas/contracts';
import { entityFromRow, managerOf, OutboxRelay, PreparedEntityQuery, recordEvents, RowRead, Transaction } from '@aas/platform';
import DataLoader from 'dataloader';
import { DataSource } from 'typeorm';
import { AgentEntity } from '../database/agent.entity';
import { AgentPageQuery, AgentStore, DeletedAgent, NewAgent } from './agent.store';

/** Agents read by one statement at most: a bound on the statement's array. */
const MAX_AGENTS_PER_READ = 100;

/** The agent store on PostgreSQL: the hot read a named prepared statement, the list a query builder, writes in SQL or TypeORM's entity API. */
@Injectable()
export class PostgresAgentStore extends AgentStore {
  /**
   * The hot read (GET /v1/agents/{id}), batched: the agents asked for in one turn of the event loop
   * are read by one execution of a prepared statement (one pool checkout and round trip, not one per
   * request). Nothing is cached: every read sees the table as it is.
   */
  private readonly agentsById: DataLoader<string, AgentEntity | null>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRelay,
  ) {
    super();
    const byIds = new PreparedEntityQuery(dataSource, AgentEntity, 'agents.agents-by-id', 'id = ANY($1::uuid[])');
    this.agentsById = new DataLoader(
      async (ids) => {
        const found = new Map((await byIds.many([ids])).map((agent) => [agent.id, agent]));
        return ids.map((id) => found.get(id) ?? null);
      },
      { cache: false, maxBatchSize: MAX_AGENTS_PER_READ },
    );
  }

  async findOwn(userId: string, agentId: string): Promise<AgentEntity | null> {
    const agent = await this.agentsById.load(agentId);
    return agent?.userId === userId ? agent : null;
  }

  find(userId: string, agentId: string, read: RowRead = {}): Promise<AgentEntity | null> {
    return managerOf(this.dataSource, read.tx).findOne(AgentEntity, {
      where: { id: agentId, userId },
      lock: read.lock ? { mode: 'pessimistic_write' } : undefined,
    });
  }

  exists(userId: string, agentId: string, tx?: Transaction): Promise<boolean> {
    return managerOf(this.dataSource, tx).existsBy(AgentEntity, { id: agentId, userId });
  }

  page(query: AgentPageQuery): Promise<AgentEntity[]> {
    const qb = this.dataSource
      .getRepository(AgentEntity)
      .createQueryBuilder('a')
      .where('a.user_id = :userId', { userId: query.userId })
      .orderBy('a.seq', 'ASC')
      .limit(query.take);
    if (query.afterSeq !== undefined) qb.andWhere('a.seq > :after', { after: query.afterSeq });
    if (query.workspaceId !== undefined) qb.andWhere('a.workspace_id = :workspaceId', { workspaceId: query.workspaceId });
    if (query.policyType !== undefined) qb.andWhere('a.policy_type = :policyType', { policyType: query.policyType });
    return qb.getMany();
  }

  async insertAndOnboard(tx: Transaction, agent: NewAgent): Promise<AgentEntity | null> {
    const [row] = await managerOf(this.dataSource, tx).query(
      `WITH onboarded AS (UPDATE users SET onboarded_at = now() WHERE id = $2 AND onboarded_at IS NULL)
       INSERT INTO agents (id, user_id, workspace_id, owner_user_id, is_subagent, derived_from_agent_id)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING *`,
      [agent.id, agent.userId, agent.workspaceId, agent.ownerUserId, agent.isSubagent, agent.derivedFromAgentId],
    );
    return row ? entityFromRow(this.dataSource, AgentEntity, row) : null;
  }

  async moveTo(tx: Transaction, agentId: string, workspaceId: string): Promise<void> {
    await managerOf(this.dataSource, tx).update(AgentEntity, { id: agentId }, { workspaceId });
  }

  async rename(tx: Transaction, agentId: string, name: string, explanation: string | null): Promise<void> {
    await managerOf(this.dataSource, tx).update(AgentEntity, { id: agentId }, { name, nameExplanation: explanation });
  }

  async delete(tx: Transaction, userId: string, agentIds: string[]): Promise<DeletedAgent[]> {
    const [deleted]: [Array<{ id: string; seq: string }>, number] = await managerOf(this.dataSource, tx).query(
      'DELETE FROM agents WHERE id = ANY($1::uuid[]) AND user_id = $2 RETURNING id, seq',
      [agentIds, userId],
    );
    return deleted.map((agent) => ({ id: agent.id, generation: Number(agent.seq) }));
  }

  async recordDeleted(tx: Transaction, events: AgentDeletedEvent[]): Promise<void> {
    await recordEvents(managerOf(this.dataSource, tx), EventNames.AgentDeleted, events);
    if (events.length > 0) this.outbox.kickAfterCommit(tx);
  }

  async idsInWorkspace(tx: Transaction, userId: string, workspaceId: string): Promise<string[]> {
    const agents = await managerOf(this.dataSource, tx).find(AgentEntity, { select: { id: true }, where: { workspaceId, userId } });
    return agents.map((agent) => agent.id);
  }

  async countByWorkspace(userId: string): Promise<Map<string, number>> {
    const rows = await this.dataSource.manager
      .createQueryBuilder(AgentEntity, 'a')
      .select('a.workspace_id', 'workspace_id')
      .addSelect('COUNT(*)::int', 'count')
      .where('a.user_id = :userId', { userId })
      .groupBy('a.workspace_id')
      .getRawMany<{ workspace_id: string; count: number }>();
    return new Map(rows.map((r) => [r.workspace_id, r.count]));
  }

  countInWorkspace(workspaceId: string): Promise<number> {
    return this.dataSource.manager.countBy(AgentEntity, { workspaceId });
  }
}

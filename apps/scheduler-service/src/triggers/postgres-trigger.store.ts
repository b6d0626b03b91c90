import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { TriggerSourceEvent } from '@aas/contracts';
import { Batcher } from '@aas/platform';
import { DataSource, EntityManager } from 'typeorm';
import { TriggerEntity } from './trigger.entity';
import { TriggerInsertOutcome, TriggerStore } from './trigger.store';

/** The trigger store on PostgreSQL: the scheduler schema's `triggers` table. */
@Injectable()
export class PostgresTriggerStore extends TriggerStore {
  /** Inbound calls record their starts one by one: those that come together are one UPDATE, not a queue on the row's lock. */
  private readonly starts = new Batcher<string[], void>(
    async (lists) => {
      const ids = [...new Set(lists.flat())];
      await this.dataSource.query(`UPDATE triggers SET last_triggered_at = now() WHERE id = ANY($1::uuid[])`, [ids]);
      return lists.map(() => undefined);
    },
    { maxBatchSize: 500, maxConcurrentBatches: 2 },
  );

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  listOfAgent(userId: string, agentId: string): Promise<TriggerEntity[]> {
    return this.dataSource.manager.find(TriggerEntity, { where: { userId, agentId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  findOwned(userId: string, agentId: string, triggerId: string): Promise<TriggerEntity | null> {
    return this.dataSource.manager.findOneBy(TriggerEntity, { id: triggerId, userId, agentId });
  }

  findWebhook(triggerId: string): Promise<TriggerEntity | null> {
    return this.dataSource.manager.findOneBy(TriggerEntity, { id: triggerId, kind: 'webhook' });
  }

  activeFollowing(userId: string, sourceAgentId: string, sourceGeneration: number | null, event: TriggerSourceEvent): Promise<TriggerEntity[]> {
    return this.dataSource.manager
      .createQueryBuilder(TriggerEntity, 't')
      .where(`t.kind = 'event' AND t.status = 'active' AND t.source_agent_id = :source AND t.user_id = :user AND :event = ANY(t.events)`, {
        source: sourceAgentId,
        user: userId,
        event,
      })
      .andWhere('(CAST(:generation AS bigint) IS NULL OR t.source_agent_generation = :generation)', { generation: sourceGeneration })
      .orderBy('t.created_at')
      .addOrderBy('t.id')
      .getMany();
  }

  /** The count and the insert run under a transaction-scoped advisory lock on the agent. */
  async insertWithin(trigger: TriggerEntity, limit: number): Promise<TriggerInsertOutcome> {
    return this.dataSource.transaction(async (manager: EntityManager) => {
      if (limit > 0) {
        await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`triggers:agent:${trigger.agentId}`]);
        const [{ held }]: { held: number }[] = await manager.query(
          'SELECT count(*)::int AS held FROM (SELECT 1 FROM triggers WHERE agent_id = $1 LIMIT $2) counted',
          [trigger.agentId, limit],
        );
        if (held >= limit) return { inserted: false, held };
      }
      await manager.insert(TriggerEntity, trigger);
      return { inserted: true };
    });
  }

  async update(trigger: TriggerEntity, changes: Partial<TriggerEntity>): Promise<void> {
    await this.dataSource.manager.update(TriggerEntity, { id: trigger.id }, { ...changes, updatedAt: new Date() });
  }

  async delete(trigger: TriggerEntity): Promise<void> {
    await this.dataSource.manager.delete(TriggerEntity, { id: trigger.id });
  }

  async deleteOfAgent(userId: string, agentId: string, generation: number | undefined): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM triggers WHERE user_id = $1
          AND ((agent_id = $2 AND ($3::bigint IS NULL OR agent_generation <= $3))
            OR (source_agent_id = $2 AND ($3::bigint IS NULL OR source_agent_generation <= $3)))`,
      [userId, agentId, generation ?? null],
    );
  }

  async recordStarted(triggerIds: string[]): Promise<void> {
    if (triggerIds.length === 0) return;
    await this.starts.submit(triggerIds);
  }

  async recordErrors(errors: Array<{ triggerId: string; error: string }>): Promise<void> {
    if (errors.length === 0) return;
    await this.dataSource.query(
      `UPDATE triggers t SET last_error = v.error, last_error_at = now()
         FROM unnest($1::uuid[], $2::text[]) AS v(id, error) WHERE t.id = v.id`,
      [errors.map((e) => e.triggerId), errors.map((e) => e.error)],
    );
  }
}

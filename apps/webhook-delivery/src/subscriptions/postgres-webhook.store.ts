import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { entityFromRow, managerOf, Transaction } from '@aas/platform';
import { DataSource } from 'typeorm';
import { WebhookEntity } from '../database/webhook.entity';
import { NewWebhook, WebhookChanges, WebhookStore } from './webhook.store';

/** The webhook store on PostgreSQL: the webhooks schema's `webhooks` table (deliveries go with it, ON DELETE CASCADE). */
@Injectable()
export class PostgresWebhookStore extends WebhookStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async listOfAgent(userId: string, agentId: string): Promise<WebhookEntity[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      'SELECT * FROM webhooks WHERE agent_id = $1 AND user_id = $2 ORDER BY created_at, id',
      [agentId, userId],
    );
    return rows.map((row) => this.toEntity(row));
  }

  async findOwned(userId: string, agentId: string, webhookId: string): Promise<WebhookEntity | null> {
    const [row]: Record<string, unknown>[] = await this.dataSource.query(
      'SELECT * FROM webhooks WHERE id = $1 AND agent_id = $2 AND user_id = $3',
      [webhookId, agentId, userId],
    );
    return row ? this.toEntity(row) : null;
  }

  async lockAgent(tx: Transaction, agentId: string): Promise<void> {
    await managerOf(this.dataSource, tx).query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhooks:agent:${agentId}`]);
  }

  async countOfGeneration(tx: Transaction, agentId: string, generation: number, atMost: number): Promise<number> {
    const [{ held }]: { held: number }[] = await managerOf(this.dataSource, tx).query(
      `SELECT count(*)::int AS held FROM (
         SELECT 1 FROM webhooks WHERE agent_id = $1 AND (agent_generation IS NULL OR agent_generation = $3) LIMIT $2) counted`,
      [agentId, atMost, generation],
    );
    return held;
  }

  async insert(tx: Transaction, webhook: NewWebhook): Promise<WebhookEntity> {
    const [row]: Record<string, unknown>[] = await managerOf(this.dataSource, tx).query(
      `INSERT INTO webhooks (agent_id, agent_generation, user_id, url, events, status, secret_sealed)
       VALUES ($1, $2, $3, $4, $5, 'active', $6) RETURNING *`,
      [webhook.agentId, webhook.agentGeneration, webhook.userId, webhook.url, webhook.events, webhook.secretSealed],
    );
    return this.toEntity(row);
  }

  async update(webhookId: string, changes: WebhookChanges): Promise<WebhookEntity | null> {
    const [rows]: [Record<string, unknown>[], number] = await this.dataSource.query(
      `UPDATE webhooks SET url = coalesce($2, url), events = coalesce($3, events), status = coalesce($4, status),
              disabled_reason = CASE WHEN $4 = 'active' THEN NULL WHEN $4 = 'disabled' AND status <> 'disabled' THEN 'disabled_by_owner' ELSE disabled_reason END,
              updated_at = now()
        WHERE id = $1 RETURNING *`,
      [webhookId, changes.url ?? null, changes.events ?? null, changes.status ?? null],
    );
    return rows[0] ? this.toEntity(rows[0]) : null;
  }

  async delete(webhookId: string): Promise<void> {
    await this.dataSource.query('DELETE FROM webhooks WHERE id = $1', [webhookId]);
  }

  async deleteOfAgent(agentId: string, userId: string, generation: number | undefined): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM webhooks WHERE agent_id = $1 AND user_id = $2
          AND ($3::bigint IS NULL OR agent_generation IS NULL OR agent_generation <= $3)`,
      [agentId, userId, generation ?? null],
    );
  }

  private toEntity(row: Record<string, unknown>): WebhookEntity {
    return entityFromRow(this.dataSource, WebhookEntity, row);
  }
}

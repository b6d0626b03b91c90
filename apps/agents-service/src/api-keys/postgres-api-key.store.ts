import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { entityFromRow, managerOf, Transaction } from '@aas/platform';
import { DataSource } from 'typeorm';
import { ApiKeyEntity } from '../database/api-key.entity';
import { ApiKeyStore, NewApiKey } from './api-key.store';

/** The API key store on PostgreSQL, in raw SQL: the verification on every uncached request is one light query. */
@Injectable()
export class PostgresApiKeyStore extends ApiKeyStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async listActive(userId: string): Promise<ApiKeyEntity[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      'SELECT * FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at, id',
      [userId],
    );
    return rows.map((row) => this.toEntity(row));
  }

  async lockCreatingSession(tx: Transaction, sessionId: string): Promise<boolean> {
    const rows: unknown[] = await managerOf(this.dataSource, tx).query('SELECT 1 FROM console_sessions WHERE id = $1 FOR SHARE', [sessionId]);
    return rows.length > 0;
  }

  async insert(tx: Transaction, key: NewApiKey): Promise<ApiKeyEntity> {
    const [row]: Record<string, unknown>[] = await managerOf(this.dataSource, tx).query(
      'INSERT INTO api_keys (user_id, name, key_hash, display_prefix, created_by_session_id) VALUES ($1, $2, $3, $4, $5) RETURNING *',
      [key.userId, key.name, key.keyHash, key.displayPrefix, key.createdBySessionId ?? null],
    );
    return this.toEntity(row);
  }

  async listMadeBySessionsSince(userId: string, since: Date | null): Promise<ApiKeyEntity[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT * FROM api_keys
        WHERE user_id = $1 AND created_by_session_id IS NOT NULL AND revoked_at IS NULL AND ($2::timestamptz IS NULL OR created_at > $2)
        ORDER BY created_at, id`,
      [userId, since],
    );
    return rows.map((row) => this.toEntity(row));
  }

  async findActive(keyId: string, userId?: string): Promise<ApiKeyEntity | null> {
    const [row]: Record<string, unknown>[] = await this.dataSource.query(
      'SELECT * FROM api_keys WHERE id = $1 AND ($2::uuid IS NULL OR user_id = $2) AND revoked_at IS NULL',
      [keyId, userId ?? null],
    );
    return row ? this.toEntity(row) : null;
  }

  async setRevoked(keyId: string, at: Date): Promise<void> {
    await this.dataSource.query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1', [keyId, at]);
  }

  async findActiveByHash(keyHash: string): Promise<{ id: string; userId: string } | null> {
    const [row]: { id: string; user_id: string }[] = await this.dataSource.query(
      'SELECT id, user_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
      [keyHash],
    );
    return row ? { id: row.id, userId: row.user_id } : null;
  }

  async upsertActive(key: NewApiKey): Promise<string> {
    const rows: { id: string }[] = await this.dataSource.query(
      `INSERT INTO api_keys (user_id, name, key_hash, display_prefix)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (key_hash) DO UPDATE SET revoked_at = NULL
       RETURNING id`,
      [key.userId, key.name, key.keyHash, key.displayPrefix],
    );
    return rows[0].id;
  }

  async recordLastUse(times: Map<string, number>): Promise<void> {
    await this.dataSource.query(
      `UPDATE api_keys k
         SET last_used_at = GREATEST(COALESCE(k.last_used_at, 'epoch'::timestamptz), to_timestamp(v.ms / 1000.0))
        FROM unnest($1::uuid[], $2::float8[]) AS v(id, ms)
       WHERE k.id = v.id`,
      [[...times.keys()], [...times.values()]],
    );
  }

  private toEntity(row: Record<string, unknown>): ApiKeyEntity {
    return entityFromRow(this.dataSource, ApiKeyEntity, row);
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { QuotaCounted, UserQuotaStore } from './user-quota.store';
import { managerOf, Transaction } from '@aas/platform';

/** One row per counted thing of the user `$1`. */
const COUNTED: Record<QuotaCounted, string> = {
  activeApiKeys: 'SELECT 1 FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL',
  agents: 'SELECT 1 FROM agents WHERE user_id = $1',
  workspaces: 'SELECT 1 FROM workspaces WHERE user_id = $1',
};

/** The quota store on PostgreSQL, in raw SQL. */
@Injectable()
export class PostgresUserQuotaStore extends UserQuotaStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async lockUser(tx: Transaction, userId: string): Promise<void> {
    await managerOf(this.dataSource, tx).query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId]);
  }

  async countHeld(tx: Transaction, userId: string, counted: QuotaCounted, limit: number): Promise<number> {
    const [{ held }]: { held: number }[] = await managerOf(this.dataSource, tx).query(
      `SELECT count(*)::int AS held FROM (${COUNTED[counted]} LIMIT $2) counted`,
      [userId, limit],
    );
    return held;
  }
}

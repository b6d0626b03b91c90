import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { QuotaExceededError } from '@aas/problem-details';
import { EntityManager } from 'typeorm';
import { AgentsEnv } from '../config/agents.env';

/** A number of things one user may hold at most `setting` of. */
export interface UserQuota {
  /** As it appears in the problem's `quota` member. */
  name: string;
  setting: 'QUOTA_API_KEYS_PER_USER' | 'QUOTA_AGENTS_PER_USER' | 'QUOTA_WORKSPACES_PER_USER';
  /** Selects one row per counted thing of the user `$1`. */
  counted: string;
  what: string;
  advice: string;
}

export const USER_QUOTAS = {
  apiKeys: {
    name: 'api_keys_per_user',
    setting: 'QUOTA_API_KEYS_PER_USER',
    counted: 'SELECT 1 FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL',
    what: 'active API keys',
    advice: 'revoke one before creating another',
  },
  agents: {
    name: 'agents_per_user',
    setting: 'QUOTA_AGENTS_PER_USER',
    counted: 'SELECT 1 FROM agents WHERE user_id = $1',
    what: 'agents',
    advice: 'delete one before creating another',
  },
  workspaces: {
    name: 'workspaces_per_user',
    setting: 'QUOTA_WORKSPACES_PER_USER',
    counted: 'SELECT 1 FROM workspaces WHERE user_id = $1',
    what: 'workspaces (the default one included)',
    advice: 'delete one before creating another',
  },
} as const satisfies Record<string, UserQuota>;

/** The per-user quotas of agents-service, checked inside the transaction that creates the thing counted. */
@Injectable()
export class UserQuotas {
  constructor(private readonly config: ConfigService<AgentsEnv, true>) {}

  /**
   * Call first in the creating transaction. The user's row stays locked until that transaction ends
   * (FOR NO KEY UPDATE, so inserts that merely reference the user are not blocked), which serialises
   * the user's creations: two concurrent ones can never both take the last slot. The count stops at
   * the limit, so it costs at most `limit` index entries however many rows an older install has.
   */
  async reserve(manager: EntityManager, userId: string, quota: UserQuota): Promise<void> {
    if (this.config.get(quota.setting, { infer: true }) === 0) return;
    await this.lockUser(manager, userId);
    await this.check(manager, userId, quota);
  }

  /** The first half of reserve, for a transaction that has more to do before counting. */
  async lockUser(manager: EntityManager, userId: string): Promise<void> {
    await manager.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId]);
  }

  /** The second half of reserve: only race-free after lockUser in the same transaction. */
  async check(manager: EntityManager, userId: string, quota: UserQuota): Promise<void> {
    const limit = this.config.get(quota.setting, { infer: true });
    if (limit === 0) return;
    const [{ held }]: { held: number }[] = await manager.query(
      `SELECT count(*)::int AS held FROM (${quota.counted} LIMIT $2) counted`,
      [userId, limit],
    );
    if (held >= limit) {
      throw new QuotaExceededError(
        `You have ${held} ${quota.what}, the most one user may have (quota ${quota.name} is ${limit}); ${quota.advice}`,
        quota.name,
        limit,
      );
    }
  }
}

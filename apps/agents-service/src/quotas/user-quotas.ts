import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { QuotaExceededError } from '@aas/problem-details';
import { AgentsEnv } from '../config/agents.env';
import { QuotaCounted, UserQuotaStore } from './user-quota.store';
import { Transaction } from '@aas/platform';

/** A number of things one user may hold at most `setting` of. */
export interface UserQuota {
  /** As it appears in the problem's `quota` member. */
  name: string;
  setting: 'QUOTA_API_KEYS_PER_USER' | 'QUOTA_AGENTS_PER_USER' | 'QUOTA_WORKSPACES_PER_USER';
  counted: QuotaCounted;
  what: string;
  advice: string;
}

export const USER_QUOTAS = {
  apiKeys: {
    name: 'api_keys_per_user',
    setting: 'QUOTA_API_KEYS_PER_USER',
    counted: 'activeApiKeys',
    what: 'active API keys',
    advice: 'revoke one before creating another',
  },
  agents: {
    name: 'agents_per_user',
    setting: 'QUOTA_AGENTS_PER_USER',
    counted: 'agents',
    what: 'agents',
    advice: 'delete one before creating another',
  },
  workspaces: {
    name: 'workspaces_per_user',
    setting: 'QUOTA_WORKSPACES_PER_USER',
    counted: 'workspaces',
    what: 'workspaces (the default one included)',
    advice: 'delete one before creating another',
  },
} as const satisfies Record<string, UserQuota>;

/** The per-user quotas of agents-service, checked inside the transaction that creates the thing counted. */
@Injectable()
export class UserQuotas {
  constructor(
    private readonly config: ConfigService<AgentsEnv, true>,
    private readonly store: UserQuotaStore,
  ) {}

  /**
   * Call first in the creating transaction. The user's row stays locked until that transaction ends,
   * which serialises the user's creations: two concurrent ones can never both take the last slot.
   * A quota of 0 is off: nothing is locked or counted.
   */
  async reserve(tx: Transaction, userId: string, quota: UserQuota): Promise<void> {
    if (this.config.get(quota.setting, { infer: true }) === 0) return;
    await this.lockUser(tx, userId);
    await this.check(tx, userId, quota);
  }

  /** The first half of reserve, for a transaction that has more to do before counting. */
  async lockUser(tx: Transaction, userId: string): Promise<void> {
    await this.store.lockUser(tx, userId);
  }

  /** The second half of reserve: only race-free after lockUser in the same transaction. */
  async check(tx: Transaction, userId: string, quota: UserQuota): Promise<void> {
    const limit = this.config.get(quota.setting, { infer: true });
    if (limit === 0) return;
    const held = await this.store.countHeld(tx, userId, quota.counted, limit);
    if (held >= limit) {
      throw new QuotaExceededError(
        `You have ${held} ${quota.what}, the most one user may have (quota ${quota.name} is ${limit}); ${quota.advice}`,
        quota.name,
        limit,
      );
    }
  }
}

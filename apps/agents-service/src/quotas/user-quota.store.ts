import { Transaction } from '@aas/platform';

/** What a per-user quota counts. */
export type QuotaCounted = 'activeApiKeys' | 'agents' | 'workspaces';

/**
 * The statements of the per-user quotas: the user's row lock that serialises its creations, and the counts
 * (postgres-user-quota.store.ts); an abstract class, so that it is the injection token and a fake can stand in for it.
 */
export abstract class UserQuotaStore {
  /** Locks the user's row until `tx` ends (FOR NO KEY UPDATE: inserts that merely reference the user are not blocked). */
  abstract lockUser(tx: Transaction, userId: string): Promise<void>;
  /** How many the user holds, counted no further than `limit` (so it costs at most `limit` index entries). */
  abstract countHeld(tx: Transaction, userId: string, counted: QuotaCounted, limit: number): Promise<number>;
}

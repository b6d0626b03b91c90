import { ApiKeyEntity } from '../database/api-key.entity';
import { Transaction } from '@aas/platform';

export interface NewApiKey {
  userId: string;
  name: string;
  /** Hex SHA-256 of the key; the key itself is never stored. */
  keyHash: string;
  displayPrefix: string;
  /** The console session that asks for the key, if one does. */
  createdBySessionId?: string;
}

/**
 * Every statement on the `api_keys` table (postgres-api-key.store.ts); an abstract class, so that it is
 * the injection token and a fake can stand in for it.
 */
export abstract class ApiKeyStore {
  /** The user's keys that are not revoked, oldest first. */
  abstract listActive(userId: string): Promise<ApiKeyEntity[]>;
  abstract insert(tx: Transaction, key: NewApiKey): Promise<ApiKeyEntity>;
  /**
   * Locks the console session a new key will record (FOR SHARE) until `tx` ends, so a password reset
   * cannot end it meanwhile; answers whether it exists.
   */
  abstract lockCreatingSession(tx: Transaction, sessionId: string): Promise<boolean>;
  /** The user's active keys that a console session made after `since` (every one when null), oldest first. */
  abstract listMadeBySessionsSince(userId: string, since: Date | null): Promise<ApiKeyEntity[]>;
  /** The key if it is not revoked, of `userId` when one is given (else of any user). */
  abstract findActive(keyId: string, userId?: string): Promise<ApiKeyEntity | null>;
  abstract setRevoked(keyId: string, at: Date): Promise<void>;
  /** The active key with this hash, for verifying a request. */
  abstract findActiveByHash(keyHash: string): Promise<{ id: string; userId: string } | null>;
  /** The key with this hash is the user's and active (inserted, or revived if it was revoked); answers its id. */
  abstract upsertActive(key: NewApiKey): Promise<string>;
  /** Sets each key's last use (epoch ms) to the given time unless the stored one is later. */
  abstract recordLastUse(times: Map<string, number>): Promise<void>;
}

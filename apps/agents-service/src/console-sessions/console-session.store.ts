import { ConsoleSession, LoginCredentials } from '@aas/contracts';
import { Transaction } from '@aas/platform';

/**
 * Every statement of console sign-in: `console_sessions`, `console_setup_tokens`, and the users'
 * password hashes. A session or setup token is expired by PostgreSQL's clock (`expires_at <= now()`).
 * (postgres-console-session.store.ts; an abstract class, so that it is the injection token and a fake can stand in for it.)
 */
export abstract class ConsoleSessionStore {
  /** Serialises first-run setup (issuing and spending setup tokens) until `tx` ends. */
  abstract lockSetup(tx: Transaction): Promise<void>;
  abstract anyUserHasPassword(tx?: Transaction): Promise<boolean>;
  /** The one setup token: earlier ones are deleted. */
  abstract replaceSetupToken(tx: Transaction, tokenHash: string, expiresAt: Date): Promise<void>;
  /** Whether the token exists and has not expired (nothing changes). */
  abstract setupTokenIsLive(tokenHash: string): Promise<boolean>;
  /** Deletes the token if it exists and has not expired; answers whether it did. */
  abstract spendSetupToken(tx: Transaction, tokenHash: string): Promise<boolean>;
  /** A new user with this password hash; null, and nothing changed, when the email is taken. */
  abstract insertUserWithPassword(tx: Transaction, email: string, passwordHash: string): Promise<string | null>;
  abstract loginCredentials(email: string): Promise<LoginCredentials | null>;
  /** Locks the user's row if its password hash is still `passwordHash`; answers whether it is. */
  abstract lockUserWithPassword(tx: Transaction, userId: string, passwordHash: string): Promise<boolean>;
  /** Replaces the user's password hash by another of the same password (a rehash): not a reset. */
  abstract replacePasswordHash(tx: Transaction, userId: string, passwordHash: string): Promise<void>;
  /**
   * An admin's reset: changes the password hash of the user with this email and records when;
   * answers the user's id and the previous reset's time, null when there is no such user.
   */
  abstract setPasswordHash(tx: Transaction, email: string, passwordHash: string): Promise<{ userId: string; previousChange: Date | null } | null>;
  /** A session of the user that expires `ttlMs` from now. */
  abstract insertSession(tx: Transaction, userId: string, tokenHash: string, ttlMs: number): Promise<ConsoleSession>;
  /**
   * The session with this token, unless it has expired or was last used `idleMs` ago or longer; its
   * last use becomes now when it was recorded `touchAfterMs` ago or longer (not on every request).
   */
  abstract findLiveSession(tokenHash: string, idleMs: number, touchAfterMs: number): Promise<ConsoleSession | null>;
  /** Deletes the user's sessions that expired or went unused `idleMs` or longer. */
  abstract deleteExpiredSessionsOf(tx: Transaction, userId: string, idleMs: number): Promise<void>;
  /** Deletes the user's sessions but the newest `kept`; answers the ids deleted. */
  abstract deleteAllButNewestSessions(tx: Transaction, userId: string, kept: number): Promise<string[]>;
  /** Answers the ids deleted (none, or the one session with this token). */
  abstract deleteSessionByToken(tokenHash: string): Promise<string[]>;
  abstract deleteSessionsOf(tx: Transaction, userId: string): Promise<string[]>;
  /** Deletes every expired or idle session and every expired setup token. */
  abstract deleteExpired(idleMs: number): Promise<void>;
}

import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ConsoleSession, ConsoleSetupMessage, LoginCredentials, generateSetupToken, hashPassword, hashToken } from '@aas/contracts';
import { ConflictError, ResourceNotFoundError, UnauthorizedError } from '@aas/problem-details';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { AccessAnnouncer } from '../common/access-announcer';
import { AgentsEnv } from '../config/agents.env';
import { ConsoleSessionStore } from './console-session.store';
import { Transaction, Transactions, afterCommit } from '@aas/platform';

/** A user keeps at most this many console sessions; signing in again ends the oldest. */
export const SESSIONS_PER_USER = 10;
/** A setup token is valid this long after it was issued. */
export const SETUP_TOKEN_TTL_MS = 24 * 3_600_000;
/** A session's last use is written at most this often (a quarter of the idle timeout when that is shorter). */
const LAST_USE_GRANULARITY_MS = 60_000;

/** A key a console session made, as a password reset lists it. */
export interface SessionMadeKey {
  key_id: string;
  name: string;
  display_prefix: string;
  created_at: string;
}

export interface PasswordReset {
  user_id: string;
  sessions_ended: number;
  /** The user's active keys that console sessions made since the previous reset: a stolen session may have made one. */
  session_made_keys: SessionMadeKey[];
  /** Whether those keys were revoked (`--revoke-session-keys`). */
  session_made_keys_revoked: boolean;
}

const SETUP_DONE = 'First-run setup is finished: a user can sign in. Sign in, or ask an admin for an account';
const BAD_SETUP_TOKEN = 'The setup token is invalid, expired or already used; run `npm run cli -- setup-token` for a new one';

/**
 * Console sign-in state, owned by agents-service with users and keys: passwords (scrypt
 * hashes), server-side sessions (by the SHA-256 of their token) and the one-time
 * first-run setup token. The gateway hashes every secret before it asks.
 */
@Injectable()
export class ConsoleSessionsService {
  private readonly ttlMs: number;
  private readonly idleMs: number;

  constructor(
    private readonly store: ConsoleSessionStore,
    private readonly transactions: Transactions,
    config: ConfigService<AgentsEnv, true>,
    private readonly announcer: AccessAnnouncer,
    private readonly apiKeys: ApiKeysService,
  ) {
    this.ttlMs = config.get('CONSOLE_SESSION_TTL_MS', { infer: true });
    this.idleMs = config.get('CONSOLE_SESSION_IDLE_TIMEOUT_MS', { infer: true });
  }

  /** First-run setup stays open until some user has a password. */
  async setupRequired(tx?: Transaction): Promise<boolean> {
    return !(await this.store.anyUserHasPassword(tx));
  }

  /** A new setup token (earlier ones stop working); only while setup is open. */
  async issueSetupToken(): Promise<{ setup_token: string; expires_at: string }> {
    return this.transactions.run(async (tx) => {
      await this.store.lockSetup(tx);
      if (!(await this.setupRequired(tx))) throw new ConflictError(SETUP_DONE);
      const token = generateSetupToken();
      const expiresAt = new Date(Date.now() + SETUP_TOKEN_TTL_MS);
      await this.store.replaceSetupToken(tx, hashToken(token), expiresAt);
      return { setup_token: token, expires_at: expiresAt.toISOString() };
    });
  }

  /**
   * Whether setup would accept this token now (404 once setup is over, 401 for a bad token): the
   * gateway asks before it hashes a password, so a guessed token costs no hash. Setup checks again.
   */
  async checkSetupToken(tokenHash: string): Promise<{ valid: true }> {
    if (!(await this.setupRequired())) throw new ResourceNotFoundError(SETUP_DONE);
    if (!(await this.store.setupTokenIsLive(tokenHash))) throw new UnauthorizedError(BAD_SETUP_TOKEN);
    return { valid: true };
  }

  /** Spends the setup token and creates the first user with its first session, in one transaction. */
  async setup(message: ConsoleSetupMessage): Promise<ConsoleSession> {
    return this.transactions.run(async (tx) => {
      await this.store.lockSetup(tx);
      if (!(await this.setupRequired(tx))) throw new ResourceNotFoundError(SETUP_DONE);
      if (!(await this.store.spendSetupToken(tx, message.setup_token_hash))) throw new UnauthorizedError(BAD_SETUP_TOKEN);
      const email = normalizeEmail(message.email);
      const userId = await this.store.insertUserWithPassword(tx, email, message.password_hash);
      // Rolls back, so the token stays usable with another email.
      if (userId === null) {
        throw new ConflictError(`A user with email ${email} already exists; give it a password with \`npm run cli -- users set-password\``);
      }
      return this.store.insertSession(tx, userId, message.session_token_hash, this.ttlMs);
    });
  }

  /** The user behind `email` and its password hash, or null when there is none or it has no password. */
  async loginCredentials(email: string): Promise<LoginCredentials | null> {
    return this.store.loginCredentials(normalizeEmail(email));
  }

  /**
   * A session for a user whose password the gateway checked against `passwordHash`. Refused when the
   * password changed meanwhile, so a reset ends every session, also one being created. With
   * `newPasswordHash` (the same password hashed with today's parameters) the stored hash is replaced.
   */
  async createSession(userId: string, passwordHash: string, tokenHash: string, newPasswordHash?: string): Promise<ConsoleSession> {
    return this.transactions.run(async (tx) => {
      if (!(await this.store.lockUserWithPassword(tx, userId, passwordHash))) throw new UnauthorizedError('The email or password is wrong');
      if (newPasswordHash !== undefined) await this.store.replacePasswordHash(tx, userId, newPasswordHash);
      await this.store.deleteExpiredSessionsOf(tx, userId, this.idleMs);
      const created = await this.store.insertSession(tx, userId, tokenHash, this.ttlMs);
      const evicted = await this.store.deleteAllButNewestSessions(tx, userId, SESSIONS_PER_USER);
      afterCommit(tx, () => this.announcer.sessionsEnded(evicted));
      return created;
    });
  }

  /** The live session: not expired, and used within the idle timeout (this use counts). */
  async verify(tokenHash: string): Promise<ConsoleSession | null> {
    return this.store.findLiveSession(tokenHash, this.idleMs, Math.min(LAST_USE_GRANULARITY_MS, this.idleMs / 4));
  }

  async end(tokenHash: string): Promise<{ ended: boolean }> {
    const ended = await this.store.deleteSessionByToken(tokenHash);
    await this.announcer.sessionsEnded(ended);
    return { ended: ended.length > 0 };
  }

  /**
   * The admin's password reset: the new hash, every session of the user ends, and the keys console
   * sessions made since the previous reset are listed (and revoked with `revokeSessionKeys`). They
   * are read once the sessions are gone: a key being made by one of them meanwhile held the session
   * (ApiKeysService.create), so it is either listed here or was never made.
   */
  async setPassword(email: string, password: string, options: { revokeSessionKeys?: boolean } = {}): Promise<PasswordReset> {
    const hash = await hashPassword(password);
    const result = await this.transactions.run(async (tx) => {
      const user = await this.store.setPasswordHash(tx, normalizeEmail(email), hash);
      if (user === null) throw new ResourceNotFoundError('User', normalizeEmail(email));
      const ended = await this.store.deleteSessionsOf(tx, user.userId);
      afterCommit(tx, () => this.announcer.sessionsEnded(ended));
      return { ...user, ended };
    });
    const made = await this.apiKeys.madeBySessionsSince(result.userId, result.previousChange);
    if (options.revokeSessionKeys) for (const key of made) await this.apiKeys.revokeAnyUsersKey(key.id);
    return {
      user_id: result.userId,
      sessions_ended: result.ended.length,
      session_made_keys: made.map((key) => ({ key_id: key.id, name: key.name, display_prefix: key.displayPrefix, created_at: key.createdAt.toISOString() })),
      session_made_keys_revoked: made.length > 0 && options.revokeSessionKeys === true,
    };
  }

  /** Expired and idle sessions and expired setup tokens; safe on every replica at once. */
  async purgeExpired(): Promise<void> {
    await this.store.deleteExpired(this.idleMs);
  }
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

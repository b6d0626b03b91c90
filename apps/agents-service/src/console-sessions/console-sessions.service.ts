import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ConsoleSession, ConsoleSetupMessage, LoginCredentials, generateSetupToken, hashPassword, hashToken } from '@aas/contracts';
import { ConflictError, ResourceNotFoundError, UnauthorizedError } from '@aas/problem-details';
import { AccessAnnouncer } from '../common/access-announcer';
import { AgentsEnv } from '../config/agents.env';
import { ConsoleSessionStore } from './console-session.store';
import { Transaction, Transactions } from '@aas/platform';

/** A user keeps at most this many console sessions; signing in again ends the oldest. */
export const SESSIONS_PER_USER = 10;
/** A setup token is valid this long after it was issued. */
export const SETUP_TOKEN_TTL_MS = 24 * 3_600_000;

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

  constructor(
    private readonly store: ConsoleSessionStore,
    private readonly transactions: Transactions,
    config: ConfigService<AgentsEnv, true>,
    private readonly announcer: AccessAnnouncer,
  ) {
    this.ttlMs = config.get('CONSOLE_SESSION_TTL_MS', { infer: true });
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
   * password changed meanwhile, so a reset ends every session, also one being created.
   */
  async createSession(userId: string, passwordHash: string, tokenHash: string): Promise<ConsoleSession> {
    const { session, evicted } = await this.transactions.run(async (tx) => {
      if (!(await this.store.lockUserWithPassword(tx, userId, passwordHash))) throw new UnauthorizedError('The email or password is wrong');
      await this.store.deleteExpiredSessionsOf(tx, userId);
      const created = await this.store.insertSession(tx, userId, tokenHash, this.ttlMs);
      return { session: created, evicted: await this.store.deleteAllButNewestSessions(tx, userId, SESSIONS_PER_USER) };
    });
    await this.announcer.sessionsEnded(evicted);
    return session;
  }

  async verify(tokenHash: string): Promise<ConsoleSession | null> {
    return this.store.findLiveSession(tokenHash);
  }

  async end(tokenHash: string): Promise<{ ended: boolean }> {
    const ended = await this.store.deleteSessionByToken(tokenHash);
    await this.announcer.sessionsEnded(ended);
    return { ended: ended.length > 0 };
  }

  /** The admin's password reset: the new hash, and every session of the user ends. */
  async setPassword(email: string, password: string): Promise<{ user_id: string; sessions_ended: number }> {
    const hash = await hashPassword(password);
    const result = await this.transactions.run(async (tx) => {
      const userId = await this.store.setPasswordHash(tx, normalizeEmail(email), hash);
      if (userId === null) throw new ResourceNotFoundError('User', normalizeEmail(email));
      return { user_id: userId, ended: await this.store.deleteSessionsOf(tx, userId) };
    });
    await this.announcer.sessionsEnded(result.ended);
    return { user_id: result.user_id, sessions_ended: result.ended.length };
  }

  /** Expired sessions and setup tokens; safe on every replica at once. */
  async purgeExpired(): Promise<void> {
    await this.store.deleteExpired();
  }
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { ConsoleSession, ConsoleSetupMessage, LoginCredentials, generateSetupToken, hashPassword, hashToken } from '@aas/contracts';
import { ConflictError, ResourceNotFoundError, UnauthorizedError } from '@aas/problem-details';
import { DataSource, EntityManager } from 'typeorm';
import { AccessAnnouncer } from '../common/access-announcer';
import { AgentsEnv } from '../config/agents.env';

/** A user keeps at most this many console sessions; signing in again ends the oldest. */
export const SESSIONS_PER_USER = 10;
/** A setup token is valid this long after it was issued. */
export const SETUP_TOKEN_TTL_MS = 24 * 3_600_000;

const SETUP_DONE = 'First-run setup is finished: a user can sign in. Sign in, or ask an admin for an account';
const BAD_SETUP_TOKEN = 'The setup token is invalid, expired or already used; run `npm run cli -- setup-token` for a new one';
const SETUP_LOCK = 'agents:console-setup';

interface SessionRow {
  session_id: string;
  user_id: string;
  email: string;
  expires_at: Date;
}

/**
 * Console sign-in state, owned by agents-service with users and keys: passwords (scrypt
 * hashes), server-side sessions (by the SHA-256 of their token) and the one-time
 * first-run setup token. The gateway hashes every secret before it asks.
 */
@Injectable()
export class ConsoleSessionsService {
  private readonly ttlMs: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    config: ConfigService<AgentsEnv, true>,
    private readonly announcer: AccessAnnouncer,
  ) {
    this.ttlMs = config.get('CONSOLE_SESSION_TTL_MS', { infer: true });
  }

  /** First-run setup stays open until some user has a password. */
  async setupRequired(manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows: { exists: boolean }[] = await manager.query(`SELECT EXISTS (SELECT 1 FROM users WHERE password_hash IS NOT NULL) AS exists`);
    return !rows[0].exists;
  }

  /** A new setup token (earlier ones stop working); only while setup is open. */
  async issueSetupToken(): Promise<{ setup_token: string; expires_at: string }> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [SETUP_LOCK]);
      if (!(await this.setupRequired(manager))) throw new ConflictError(SETUP_DONE);
      const token = generateSetupToken();
      const expiresAt = new Date(Date.now() + SETUP_TOKEN_TTL_MS);
      await manager.query('DELETE FROM console_setup_tokens');
      await manager.query('INSERT INTO console_setup_tokens (token_hash, expires_at) VALUES ($1, $2)', [hashToken(token), expiresAt]);
      return { setup_token: token, expires_at: expiresAt.toISOString() };
    });
  }

  /** Spends the setup token and creates the first user with its first session, in one transaction. */
  async setup(message: ConsoleSetupMessage): Promise<ConsoleSession> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [SETUP_LOCK]);
      if (!(await this.setupRequired(manager))) throw new ResourceNotFoundError(SETUP_DONE);
      const spent = returned(
        await manager.query('DELETE FROM console_setup_tokens WHERE token_hash = $1 AND expires_at > now() RETURNING token_hash', [
          message.setup_token_hash,
        ]),
      );
      if (spent.length === 0) throw new UnauthorizedError(BAD_SETUP_TOKEN);
      const email = normalizeEmail(message.email);
      const inserted: { id: string }[] = await manager.query(
        `INSERT INTO users (email, password_hash) VALUES ($1, $2) ON CONFLICT (email) DO NOTHING RETURNING id`,
        [email, message.password_hash],
      );
      // Rolls back, so the token stays usable with another email.
      if (inserted.length === 0) {
        throw new ConflictError(`A user with email ${email} already exists; give it a password with \`npm run cli -- users set-password\``);
      }
      return this.insertSession(manager, inserted[0].id, message.session_token_hash);
    });
  }

  /** The user behind `email` and its password hash, or null when there is none or it has no password. */
  async loginCredentials(email: string): Promise<LoginCredentials | null> {
    const rows: LoginCredentials[] = await this.dataSource.query(
      'SELECT id AS user_id, password_hash FROM users WHERE email = $1 AND password_hash IS NOT NULL',
      [normalizeEmail(email)],
    );
    return rows[0] ?? null;
  }

  /**
   * A session for a user whose password the gateway checked against `passwordHash`. Refused when the
   * password changed meanwhile, so a reset ends every session, also one being created.
   */
  async createSession(userId: string, passwordHash: string, tokenHash: string): Promise<ConsoleSession> {
    const { session, evicted } = await this.dataSource.transaction(async (manager) => {
      const users: unknown[] = await manager.query('SELECT 1 FROM users WHERE id = $1 AND password_hash = $2 FOR UPDATE', [userId, passwordHash]);
      if (users.length === 0) throw new UnauthorizedError('The email or password is wrong');
      await manager.query('DELETE FROM console_sessions WHERE user_id = $1 AND expires_at <= now()', [userId]);
      const created = await this.insertSession(manager, userId, tokenHash);
      const ended = returned<{ id: string }>(
        await manager.query(
          `DELETE FROM console_sessions WHERE user_id = $1 AND id NOT IN (
             SELECT id FROM console_sessions WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2) RETURNING id`,
          [userId, SESSIONS_PER_USER],
        ),
      );
      return { session: created, evicted: ended.map((row) => row.id) };
    });
    await this.announcer.sessionsEnded(evicted);
    return session;
  }

  async verify(tokenHash: string): Promise<ConsoleSession | null> {
    const rows: SessionRow[] = await this.dataSource.query(
      `SELECT s.id AS session_id, s.user_id, u.email, s.expires_at
         FROM console_sessions s JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = $1 AND s.expires_at > now()`,
      [tokenHash],
    );
    return rows[0] ? toSession(rows[0]) : null;
  }

  async end(tokenHash: string): Promise<{ ended: boolean }> {
    const rows = returned<{ id: string }>(
      await this.dataSource.query('DELETE FROM console_sessions WHERE token_hash = $1 RETURNING id', [tokenHash]),
    );
    await this.announcer.sessionsEnded(rows.map((row) => row.id));
    return { ended: rows.length > 0 };
  }

  /** The admin's password reset: the new hash, and every session of the user ends. */
  async setPassword(email: string, password: string): Promise<{ user_id: string; sessions_ended: number }> {
    const hash = await hashPassword(password);
    const result = await this.dataSource.transaction(async (manager) => {
      const [user] = returned<{ id: string }>(
        await manager.query('UPDATE users SET password_hash = $2 WHERE email = $1 RETURNING id', [normalizeEmail(email), hash]),
      );
      if (!user) throw new ResourceNotFoundError('User', normalizeEmail(email));
      const ended = returned<{ id: string }>(await manager.query('DELETE FROM console_sessions WHERE user_id = $1 RETURNING id', [user.id]));
      return { user_id: user.id, ended: ended.map((row) => row.id) };
    });
    await this.announcer.sessionsEnded(result.ended);
    return { user_id: result.user_id, sessions_ended: result.ended.length };
  }

  /** Expired sessions and setup tokens; safe on every replica at once. */
  async purgeExpired(): Promise<void> {
    await this.dataSource.query('DELETE FROM console_sessions WHERE expires_at <= now()');
    await this.dataSource.query('DELETE FROM console_setup_tokens WHERE expires_at <= now()');
  }

  private async insertSession(manager: EntityManager, userId: string, tokenHash: string): Promise<ConsoleSession> {
    const rows: SessionRow[] = await manager.query(
      `WITH s AS (
         INSERT INTO console_sessions (token_hash, user_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3::float8 / 1000))
         RETURNING id, user_id, expires_at)
       SELECT s.id AS session_id, s.user_id, u.email, s.expires_at FROM s JOIN users u ON u.id = s.user_id`,
      [tokenHash, userId, this.ttlMs],
    );
    return toSession(rows[0]);
  }
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The rows of an UPDATE or DELETE … RETURNING: TypeORM answers those as [rows, count]. */
function returned<T = unknown>(result: [T[], number]): T[] {
  return result[0];
}

function toSession(row: SessionRow): ConsoleSession {
  return { session_id: row.session_id, user_id: row.user_id, email: row.email, expires_at: new Date(row.expires_at).toISOString() };
}

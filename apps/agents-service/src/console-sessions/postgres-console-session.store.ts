import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ConsoleSession, LoginCredentials } from '@aas/contracts';
import { DataSource } from 'typeorm';
import { ConsoleSessionStore } from './console-session.store';
import { managerOf, Transaction } from '@aas/platform';

interface SessionRow {
  session_id: string;
  user_id: string;
  email: string;
  expires_at: Date;
}

const SETUP_LOCK = 'agents:console-setup';

/** The console session store on PostgreSQL, in raw SQL. */
@Injectable()
export class PostgresConsoleSessionStore extends ConsoleSessionStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async lockSetup(tx: Transaction): Promise<void> {
    await managerOf(this.dataSource, tx).query('SELECT pg_advisory_xact_lock(hashtext($1))', [SETUP_LOCK]);
  }

  async anyUserHasPassword(tx?: Transaction): Promise<boolean> {
    const rows: { exists: boolean }[] = await managerOf(this.dataSource, tx).query(
      `SELECT EXISTS (SELECT 1 FROM users WHERE password_hash IS NOT NULL) AS exists`,
    );
    return rows[0].exists;
  }

  async replaceSetupToken(tx: Transaction, tokenHash: string, expiresAt: Date): Promise<void> {
    const manager = managerOf(this.dataSource, tx);
    await manager.query('DELETE FROM console_setup_tokens');
    await manager.query('INSERT INTO console_setup_tokens (token_hash, expires_at) VALUES ($1, $2)', [tokenHash, expiresAt]);
  }

  async setupTokenIsLive(tokenHash: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query('SELECT 1 FROM console_setup_tokens WHERE token_hash = $1 AND expires_at > now()', [tokenHash]);
    return rows.length > 0;
  }

  async spendSetupToken(tx: Transaction, tokenHash: string): Promise<boolean> {
    const spent = returned(
      await managerOf(this.dataSource, tx).query(
        'DELETE FROM console_setup_tokens WHERE token_hash = $1 AND expires_at > now() RETURNING token_hash',
        [tokenHash],
      ),
    );
    return spent.length > 0;
  }

  async insertUserWithPassword(tx: Transaction, email: string, passwordHash: string): Promise<string | null> {
    const inserted: { id: string }[] = await managerOf(this.dataSource, tx).query(
      `INSERT INTO users (email, password_hash) VALUES ($1, $2) ON CONFLICT (email) DO NOTHING RETURNING id`,
      [email, passwordHash],
    );
    return inserted[0]?.id ?? null;
  }

  async loginCredentials(email: string): Promise<LoginCredentials | null> {
    const rows: LoginCredentials[] = await this.dataSource.query(
      'SELECT id AS user_id, password_hash FROM users WHERE email = $1 AND password_hash IS NOT NULL',
      [email],
    );
    return rows[0] ?? null;
  }

  async lockUserWithPassword(tx: Transaction, userId: string, passwordHash: string): Promise<boolean> {
    const users: unknown[] = await managerOf(this.dataSource, tx).query(
      'SELECT 1 FROM users WHERE id = $1 AND password_hash = $2 FOR UPDATE',
      [userId, passwordHash],
    );
    return users.length > 0;
  }

  async replacePasswordHash(tx: Transaction, userId: string, passwordHash: string): Promise<void> {
    await managerOf(this.dataSource, tx).query('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, passwordHash]);
  }

  async setPasswordHash(tx: Transaction, email: string, passwordHash: string): Promise<{ userId: string; previousChange: Date | null } | null> {
    // The old row's time comes from a self-join: RETURNING sees only the new values.
    const [user] = returned<{ id: string; previous: Date | null }>(
      await managerOf(this.dataSource, tx).query(
        `UPDATE users u SET password_hash = $2, password_changed_at = now()
           FROM users old WHERE old.id = u.id AND u.email = $1
         RETURNING u.id, old.password_changed_at AS previous`,
        [email, passwordHash],
      ),
    );
    return user ? { userId: user.id, previousChange: user.previous } : null;
  }

  async insertSession(tx: Transaction, userId: string, tokenHash: string, ttlMs: number): Promise<ConsoleSession> {
    const rows: SessionRow[] = await managerOf(this.dataSource, tx).query(
      `WITH s AS (
         INSERT INTO console_sessions (token_hash, user_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3::float8 / 1000))
         RETURNING id, user_id, expires_at)
       SELECT s.id AS session_id, s.user_id, u.email, s.expires_at FROM s JOIN users u ON u.id = s.user_id`,
      [tokenHash, userId, ttlMs],
    );
    return toSession(rows[0]);
  }

  async findLiveSession(tokenHash: string, idleMs: number, touchAfterMs: number): Promise<ConsoleSession | null> {
    // One round trip: the check, and the last use moved forward at most once per touchAfterMs.
    const rows: SessionRow[] = await this.dataSource.query(
      `WITH live AS (
         SELECT id, user_id, expires_at, last_seen_at FROM console_sessions
          WHERE token_hash = $1 AND expires_at > now() AND last_seen_at > now() - make_interval(secs => $2::float8 / 1000)),
       touched AS (
         UPDATE console_sessions SET last_seen_at = now()
          WHERE id IN (SELECT id FROM live WHERE last_seen_at <= now() - make_interval(secs => $3::float8 / 1000)))
       SELECT live.id AS session_id, live.user_id, u.email, live.expires_at FROM live JOIN users u ON u.id = live.user_id`,
      [tokenHash, idleMs, touchAfterMs],
    );
    return rows[0] ? toSession(rows[0]) : null;
  }

  async deleteExpiredSessionsOf(tx: Transaction, userId: string, idleMs: number): Promise<void> {
    await managerOf(this.dataSource, tx).query(
      `DELETE FROM console_sessions WHERE user_id = $1 AND (expires_at <= now() OR last_seen_at <= now() - make_interval(secs => $2::float8 / 1000))`,
      [userId, idleMs],
    );
  }

  async deleteAllButNewestSessions(tx: Transaction, userId: string, kept: number): Promise<string[]> {
    const ended = returned<{ id: string }>(
      await managerOf(this.dataSource, tx).query(
        `DELETE FROM console_sessions WHERE user_id = $1 AND id NOT IN (
           SELECT id FROM console_sessions WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2) RETURNING id`,
        [userId, kept],
      ),
    );
    return ended.map((row) => row.id);
  }

  async deleteSessionByToken(tokenHash: string): Promise<string[]> {
    const rows = returned<{ id: string }>(await this.dataSource.query('DELETE FROM console_sessions WHERE token_hash = $1 RETURNING id', [tokenHash]));
    return rows.map((row) => row.id);
  }

  async deleteSessionsOf(tx: Transaction, userId: string): Promise<string[]> {
    const rows = returned<{ id: string }>(
      await managerOf(this.dataSource, tx).query('DELETE FROM console_sessions WHERE user_id = $1 RETURNING id', [userId]),
    );
    return rows.map((row) => row.id);
  }

  async deleteExpired(idleMs: number): Promise<void> {
    await this.dataSource.query(
      'DELETE FROM console_sessions WHERE expires_at <= now() OR last_seen_at <= now() - make_interval(secs => $1::float8 / 1000)',
      [idleMs],
    );
    await this.dataSource.query('DELETE FROM console_setup_tokens WHERE expires_at <= now()');
  }
}

/** The rows of an UPDATE or DELETE … RETURNING: TypeORM answers those as [rows, count]. */
function returned<T = unknown>(result: [T[], number]): T[] {
  return result[0];
}

function toSession(row: SessionRow): ConsoleSession {
  return { session_id: row.session_id, user_id: row.user_id, email: row.email, expires_at: new Date(row.expires_at).toISOString() };
}

import { ConsoleSession, LoginCredentials } from '@aas/contracts';
import { randomUUID } from 'node:crypto';
import { InMemoryDatabase, SessionRow } from '../database/in-memory-database.fake';
import { ConsoleSessionStore } from './console-session.store';
import { Transaction } from '@aas/platform';

export class FakeConsoleSessionStore implements ConsoleSessionStore {
  constructor(private readonly db: InMemoryDatabase) {}

  async lockSetup(tx: Transaction): Promise<void> {
    this.db.inTransaction(tx);
  }

  async anyUserHasPassword(): Promise<boolean> {
    return this.db.tables.users.some((u) => u.passwordHash !== null);
  }

  async replaceSetupToken(tx: Transaction, tokenHash: string, expiresAt: Date): Promise<void> {
    this.db.inTransaction(tx);
    this.db.tables.setupTokens = [{ tokenHash, expiresAt: expiresAt.getTime() }];
  }

  async setupTokenIsLive(tokenHash: string): Promise<boolean> {
    return this.db.tables.setupTokens.some((s) => s.tokenHash === tokenHash && s.expiresAt > this.db.now());
  }

  async spendSetupToken(tx: Transaction, tokenHash: string): Promise<boolean> {
    this.db.inTransaction(tx);
    const t = this.db.tables;
    const live = t.setupTokens.some((s) => s.tokenHash === tokenHash && s.expiresAt > this.db.now());
    if (live) t.setupTokens = t.setupTokens.filter((s) => s.tokenHash !== tokenHash);
    return live;
  }

  async insertUserWithPassword(tx: Transaction, email: string, passwordHash: string): Promise<string | null> {
    this.db.inTransaction(tx);
    if (this.db.tables.users.some((u) => u.email === email)) return null;
    return this.db.addUser(email, { passwordHash }).id;
  }

  async loginCredentials(email: string): Promise<LoginCredentials | null> {
    const user = this.db.tables.users.find((u) => u.email === email && u.passwordHash !== null);
    return user ? { user_id: user.id, password_hash: user.passwordHash! } : null;
  }

  async lockUserWithPassword(tx: Transaction, userId: string, passwordHash: string): Promise<boolean> {
    this.db.inTransaction(tx);
    return this.db.tables.users.some((u) => u.id === userId && u.passwordHash === passwordHash);
  }

  async replacePasswordHash(tx: Transaction, userId: string, passwordHash: string): Promise<void> {
    this.db.inTransaction(tx);
    for (const user of this.db.tables.users) if (user.id === userId) user.passwordHash = passwordHash;
  }

  async setPasswordHash(tx: Transaction, email: string, passwordHash: string): Promise<{ userId: string; previousChange: Date | null } | null> {
    this.db.inTransaction(tx);
    const user = this.db.tables.users.find((u) => u.email === email);
    if (!user) return null;
    const previous = user.passwordChangedAt;
    user.passwordHash = passwordHash;
    user.passwordChangedAt = this.db.now();
    return { userId: user.id, previousChange: previous === undefined ? null : new Date(previous) };
  }

  async insertSession(tx: Transaction, userId: string, tokenHash: string, ttlMs: number): Promise<ConsoleSession> {
    this.db.inTransaction(tx);
    if (this.db.tables.sessions.some((s) => s.tokenHash === tokenHash)) throw new Error('duplicate token_hash');
    const now = this.db.now();
    const row: SessionRow = { id: randomUUID(), tokenHash, userId, createdAt: now, expiresAt: now + ttlMs, lastSeenAt: now };
    this.db.tables.sessions.push(row);
    return this.toSession(row);
  }

  async findLiveSession(tokenHash: string, idleMs: number, touchAfterMs: number): Promise<ConsoleSession | null> {
    const now = this.db.now();
    const row = this.db.tables.sessions.find((s) => s.tokenHash === tokenHash && !this.ended(s, idleMs));
    if (!row) return null;
    if (row.lastSeenAt <= now - touchAfterMs) row.lastSeenAt = now;
    return this.toSession(row);
  }

  async deleteExpiredSessionsOf(tx: Transaction, userId: string, idleMs: number): Promise<void> {
    this.db.inTransaction(tx);
    this.deleteWhere((s) => s.userId === userId && this.ended(s, idleMs));
  }

  async deleteAllButNewestSessions(tx: Transaction, userId: string, kept: number): Promise<string[]> {
    this.db.inTransaction(tx);
    // Newest first: by creation, then (for the same instant) the later inserted.
    const newest = this.db.tables.sessions
      .map((s, index) => ({ s, index }))
      .filter(({ s }) => s.userId === userId)
      .sort((a, b) => b.s.createdAt - a.s.createdAt || b.index - a.index)
      .slice(0, kept)
      .map(({ s }) => s.id);
    return this.deleteWhere((s) => s.userId === userId && !newest.includes(s.id));
  }

  async deleteSessionByToken(tokenHash: string): Promise<string[]> {
    return this.deleteWhere((s) => s.tokenHash === tokenHash);
  }

  async deleteSessionsOf(tx: Transaction, userId: string): Promise<string[]> {
    this.db.inTransaction(tx);
    return this.deleteWhere((s) => s.userId === userId);
  }

  async deleteExpired(idleMs: number): Promise<void> {
    const now = this.db.now();
    this.deleteWhere((s) => this.ended(s, idleMs));
    this.db.tables.setupTokens = this.db.tables.setupTokens.filter((s) => s.expiresAt > now);
  }

  /** Expired, or unused for `idleMs` or longer. */
  private ended(session: SessionRow, idleMs: number): boolean {
    const now = this.db.now();
    return session.expiresAt <= now || session.lastSeenAt <= now - idleMs;
  }

  private deleteWhere(doomed: (session: SessionRow) => boolean): string[] {
    const t = this.db.tables;
    const ids = t.sessions.filter(doomed).map((s) => s.id);
    t.sessions = t.sessions.filter((s) => !doomed(s));
    return ids;
  }

  private toSession(row: SessionRow): ConsoleSession {
    const email = this.db.tables.users.find((u) => u.id === row.userId)!.email;
    return { session_id: row.id, user_id: row.userId, email, expires_at: new Date(row.expiresAt).toISOString() };
  }
}

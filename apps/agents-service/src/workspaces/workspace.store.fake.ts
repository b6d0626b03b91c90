import { randomUUID } from 'node:crypto';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { WorkspaceEntity } from '../database/workspace.entity';
import { NewWorkspace, WorkspaceStore } from './workspace.store';
import { RowRead, Transaction } from '@aas/platform';

export class FakeWorkspaceStore implements WorkspaceStore {
  constructor(private readonly db: InMemoryDatabase) {}

  private get rows(): WorkspaceEntity[] {
    return this.db.tables.workspaces;
  }

  async findDefault(userId: string): Promise<WorkspaceEntity | null> {
    const row = this.rows.find((w) => w.userId === userId && w.isDefault);
    return row ? { ...row } : null;
  }

  async insertDefaultIfAbsent(userId: string, name: string): Promise<void> {
    if (this.rows.some((w) => w.userId === userId && w.isDefault)) return;
    const now = new Date(this.db.now());
    this.rows.push({ id: randomUUID(), userId, name, iconConfig: null, runRetentionDays: null, position: 0, isDefault: true, createdAt: now, updatedAt: now });
  }

  async findOwned(userId: string, workspaceId: string, read: RowRead = {}): Promise<WorkspaceEntity | null> {
    if (read.tx) this.db.inTransaction(read.tx);
    const row = this.rows.find((w) => w.id === workspaceId && w.userId === userId);
    return row ? { ...row } : null;
  }

  async listOrdered(userId: string): Promise<WorkspaceEntity[]> {
    return this.rows
      .filter((w) => w.userId === userId)
      .sort((a, b) => a.position - b.position || a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
      .map((w) => ({ ...w }));
  }

  async lockOrder(tx: Transaction): Promise<void> {
    this.db.inTransaction(tx);
  }

  async maxPosition(tx: Transaction, userId: string): Promise<number | null> {
    this.db.inTransaction(tx);
    const positions = this.rows.filter((w) => w.userId === userId).map((w) => w.position);
    return positions.length === 0 ? null : Math.max(...positions);
  }

  async insert(tx: Transaction, workspace: NewWorkspace): Promise<WorkspaceEntity> {
    this.db.inTransaction(tx);
    const row: WorkspaceEntity = { id: randomUUID(), runRetentionDays: null, ...workspace };
    this.rows.push(row);
    return { ...row };
  }

  async save(workspace: WorkspaceEntity): Promise<void> {
    const index = this.rows.findIndex((w) => w.id === workspace.id);
    if (index >= 0) this.rows[index] = { ...workspace };
  }

  async setPositions(tx: Transaction, positions: Map<string, number>, at: Date): Promise<void> {
    this.db.inTransaction(tx);
    for (const row of this.rows) {
      const position = positions.get(row.id);
      if (position !== undefined) Object.assign(row, { position, updatedAt: at });
    }
  }

  async delete(tx: Transaction, workspaceId: string): Promise<void> {
    this.db.inTransaction(tx);
    // agents.workspace_id references the workspace without a cascade.
    if (this.db.tables.agents.some((a) => a.workspaceId === workspaceId)) throw new Error('foreign key: agents are in the workspace');
    this.db.tables.workspaces = this.rows.filter((w) => w.id !== workspaceId);
  }
}

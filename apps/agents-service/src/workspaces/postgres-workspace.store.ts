import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { WorkspaceEntity } from '../database/workspace.entity';
import { NewWorkspace, WorkspaceStore } from './workspace.store';
import { managerOf, RowRead, Transaction } from '@aas/platform';

/** The workspace store on PostgreSQL: TypeORM's entity API, and SQL where it has no words (the partial index, the lock). */
@Injectable()
export class PostgresWorkspaceStore extends WorkspaceStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  findDefault(userId: string, tx?: Transaction): Promise<WorkspaceEntity | null> {
    return managerOf(this.dataSource, tx).findOneBy(WorkspaceEntity, { userId, isDefault: true });
  }

  async insertDefaultIfAbsent(userId: string, name: string, tx?: Transaction): Promise<void> {
    await managerOf(this.dataSource, tx).query(
      `INSERT INTO workspaces (user_id, name, position, is_default)
       VALUES ($1, $2, 0, true)
       ON CONFLICT (user_id) WHERE is_default DO NOTHING`,
      [userId, name],
    );
  }

  findOwned(userId: string, workspaceId: string, read: RowRead = {}): Promise<WorkspaceEntity | null> {
    return managerOf(this.dataSource, read.tx).findOne(WorkspaceEntity, {
      where: { id: workspaceId, userId },
      lock: read.lock ? { mode: 'pessimistic_write' } : undefined,
    });
  }

  listOrdered(userId: string, tx?: Transaction): Promise<WorkspaceEntity[]> {
    return managerOf(this.dataSource, tx).find(WorkspaceEntity, { where: { userId }, order: { position: 'ASC', createdAt: 'ASC', id: 'ASC' } });
  }

  async lockOrder(tx: Transaction, userId: string): Promise<void> {
    await managerOf(this.dataSource, tx).query('SELECT pg_advisory_xact_lock(hashtext($1))', [`workspaces:${userId}`]);
  }

  maxPosition(tx: Transaction, userId: string): Promise<number | null> {
    return managerOf(this.dataSource, tx).maximum(WorkspaceEntity, 'position', { userId });
  }

  insert(tx: Transaction, workspace: NewWorkspace): Promise<WorkspaceEntity> {
    const manager = managerOf(this.dataSource, tx);
    return manager.save(manager.create(WorkspaceEntity, workspace));
  }

  async save(workspace: WorkspaceEntity): Promise<void> {
    await this.dataSource.manager.save(workspace);
  }

  async setPositions(tx: Transaction, positions: Map<string, number>, at: Date): Promise<void> {
    const manager = managerOf(this.dataSource, tx);
    for (const [id, position] of positions) await manager.update(WorkspaceEntity, { id }, { position, updatedAt: at });
  }

  async delete(tx: Transaction, workspaceId: string): Promise<void> {
    await managerOf(this.dataSource, tx).delete(WorkspaceEntity, { id: workspaceId });
  }
}

import { WorkspaceEntity } from '../database/workspace.entity';
import { RowRead, Transaction } from '@aas/platform';

export type NewWorkspace = Pick<WorkspaceEntity, 'userId' | 'name' | 'iconConfig' | 'position' | 'isDefault' | 'createdAt' | 'updatedAt'>;

/**
 * Every statement on the `workspaces` table (postgres-workspace.store.ts); an abstract class, so that it is
 * the injection token and a fake can stand in for it.
 */
export abstract class WorkspaceStore {
  abstract findDefault(userId: string, tx?: Transaction): Promise<WorkspaceEntity | null>;
  /** The user's default workspace, unless the user has one already (a partial unique index keeps it one). */
  abstract insertDefaultIfAbsent(userId: string, name: string, tx?: Transaction): Promise<void>;
  abstract findOwned(userId: string, workspaceId: string, read?: RowRead): Promise<WorkspaceEntity | null>;
  /** By position, then creation, then id. */
  abstract listOrdered(userId: string, tx?: Transaction): Promise<WorkspaceEntity[]>;
  /** Serialises the transactions that change the order of the user's workspaces, until `tx` ends. */
  abstract lockOrder(tx: Transaction, userId: string): Promise<void>;
  abstract maxPosition(tx: Transaction, userId: string): Promise<number | null>;
  abstract insert(tx: Transaction, workspace: NewWorkspace): Promise<WorkspaceEntity>;
  /** Writes the workspace's changed fields. */
  abstract save(workspace: WorkspaceEntity): Promise<void>;
  abstract setPositions(tx: Transaction, positions: Map<string, number>, at: Date): Promise<void>;
  abstract delete(tx: Transaction, workspaceId: string): Promise<void>;
}

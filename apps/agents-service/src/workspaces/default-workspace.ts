import { WorkspaceEntity } from '../database/workspace.entity';
import { WorkspaceStore } from './workspace.store';
import { Transaction } from '@aas/platform';

export const DEFAULT_WORKSPACE_NAME = 'Default';

/** The user's default workspace, made on first need; safe when several requests race (partial unique index). */
export async function defaultWorkspaceOf(workspaces: WorkspaceStore, userId: string, tx?: Transaction): Promise<WorkspaceEntity> {
  const existing = await workspaces.findDefault(userId, tx);
  if (existing) return existing;
  await workspaces.insertDefaultIfAbsent(userId, DEFAULT_WORKSPACE_NAME, tx);
  const made = await workspaces.findDefault(userId, tx);
  // The default workspace is never deleted, so the one just made (here or by a racing request) is there.
  if (!made) throw new Error(`the default workspace of user ${userId} was not made`);
  return made;
}

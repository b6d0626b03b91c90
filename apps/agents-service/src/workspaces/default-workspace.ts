import { EntityManager } from 'typeorm';
import { WorkspaceEntity } from './workspace.entity';

export const DEFAULT_WORKSPACE_NAME = 'Default';

/** The user's default workspace, made on first need; safe when several requests race (partial unique index). */
export async function defaultWorkspaceOf(manager: EntityManager, userId: string): Promise<WorkspaceEntity> {
  const existing = await manager.findOneBy(WorkspaceEntity, { userId, isDefault: true });
  if (existing) return existing;
  await manager.query(
    `INSERT INTO workspaces (user_id, name, position, is_default)
     VALUES ($1, $2, 0, true)
     ON CONFLICT (user_id) WHERE is_default DO NOTHING`,
    [userId, DEFAULT_WORKSPACE_NAME],
  );
  return manager.findOneByOrFail(WorkspaceEntity, { userId, isDefault: true });
}

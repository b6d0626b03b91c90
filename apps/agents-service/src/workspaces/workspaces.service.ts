import { AccessAnnouncer } from '../common/access-announcer';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DeleteWorkspaceResponse, UpdateWorkspaceMessage, WorkspaceDto } from '@aas/contracts';
import { ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { DataSource, EntityManager } from 'typeorm';
import { AgentEntity } from '../agents/agent.entity';
import { removeAgents } from '../agents/agent-removal';
import { isUuid } from '../common/is-uuid';
import { OutboxRelay } from '@aas/platform';
import { USER_QUOTAS, UserQuotas } from '../quotas/user-quotas';
import { defaultWorkspaceOf } from './default-workspace';
import { reorderPositions } from './workspace-order';
import { WorkspaceEntity } from './workspace.entity';
import { toWorkspaceDto } from './workspace.mapper';

@Injectable()
export class WorkspacesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRelay,
    private readonly quotas: UserQuotas,
    private readonly announcer: AccessAnnouncer,
  ) {}

  /** By position, then creation; agent_count is counted, never stored, so it cannot drift. */
  async list(userId: string): Promise<WorkspaceDto[]> {
    await defaultWorkspaceOf(this.dataSource.manager, userId);
    const workspaces = await this.ordered(this.dataSource.manager, userId);
    const counts = await this.agentCounts(this.dataSource.manager, userId);
    return workspaces.map((w) => toWorkspaceDto(w, counts.get(w.id) ?? 0));
  }

  async create(userId: string, name: string): Promise<WorkspaceDto> {
    const workspace = await this.dataSource.transaction(async (manager) => {
      // The user's row first, as every creation of the user takes it (any other order could deadlock);
      // counted once the default workspace exists, since it counts too.
      await this.quotas.lockUser(manager, userId);
      await defaultWorkspaceOf(manager, userId);
      await this.quotas.check(manager, userId, USER_QUOTAS.workspaces);
      // Serialises creations of one user, so each new workspace gets a distinct last position.
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`workspaces:${userId}`]);
      const { max } = await manager
        .createQueryBuilder(WorkspaceEntity, 'w')
        .select('MAX(w.position)', 'max')
        .where('w.user_id = :userId', { userId })
        .getRawOne<{ max: number | null }>() ?? { max: null };
      const now = new Date();
      return manager.save(
        manager.create(WorkspaceEntity, {
          userId,
          name,
          iconConfig: null,
          position: (max ?? -1) + 1,
          isDefault: false,
          createdAt: now,
          updatedAt: now,
        }),
      );
    });
    return toWorkspaceDto(workspace, 0);
  }

  async update(message: UpdateWorkspaceMessage): Promise<WorkspaceDto> {
    const workspace = await this.find(this.dataSource.manager, message.user_id, message.workspace_id);
    workspace.name = message.name;
    if (message.icon_config !== undefined) workspace.iconConfig = message.icon_config;
    workspace.updatedAt = new Date();
    await this.dataSource.manager.save(workspace);
    const count = await this.dataSource.manager.countBy(AgentEntity, { workspaceId: workspace.id });
    return toWorkspaceDto(workspace, count);
  }

  /** Deletes the workspace and every agent in it (with their cascade). The default workspace stays. */
  async delete(userId: string, workspaceId: string): Promise<DeleteWorkspaceResponse> {
    const result = await this.dataSource.transaction(async (manager) => {
      const workspace = await this.find(manager, userId, workspaceId, true);
      if (workspace.isDefault) return { deleted: false, error: 'The default workspace cannot be deleted' };
      const agents = await manager.find(AgentEntity, { select: { id: true }, where: { workspaceId: workspace.id, userId } });
      const removed = await removeAgents(manager, userId, agents.map((a) => a.id));
      await manager.delete(WorkspaceEntity, { id: workspace.id });
      return { deleted: true, error: null, removed };
    });
    if (!result.deleted) return result;
    this.outbox.kick();
    await this.announcer.agentsDeleted(userId, result.removed ?? []);
    return { deleted: true, error: null };
  }

  async reorder(userId: string, workspaceIds: string[]): Promise<{ success: boolean }> {
    if (new Set(workspaceIds).size !== workspaceIds.length) throw invalidIds('workspace_ids must not repeat an id');
    await this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`workspaces:${userId}`]);
      const current = (await this.ordered(manager, userId)).map((w) => w.id);
      const owned = new Set(current);
      const foreign = workspaceIds.filter((id) => !owned.has(id));
      if (foreign.length > 0) throw invalidIds(`workspace_ids contains ids that are not your workspaces: ${foreign.join(', ')}`);
      for (const [id, position] of reorderPositions(current, workspaceIds)) {
        await manager.update(WorkspaceEntity, { id }, { position, updatedAt: new Date() });
      }
    });
    return { success: true };
  }

  private async find(manager: EntityManager, userId: string, workspaceId: string, lock = false): Promise<WorkspaceEntity> {
    const workspace = isUuid(workspaceId)
      ? await manager.findOne(WorkspaceEntity, {
          where: { id: workspaceId, userId },
          lock: lock ? { mode: 'pessimistic_write' } : undefined,
        })
      : null;
    if (!workspace) throw new ResourceNotFoundError('Workspace', workspaceId);
    return workspace;
  }

  private ordered(manager: EntityManager, userId: string): Promise<WorkspaceEntity[]> {
    return manager.find(WorkspaceEntity, { where: { userId }, order: { position: 'ASC', createdAt: 'ASC', id: 'ASC' } });
  }

  private async agentCounts(manager: EntityManager, userId: string): Promise<Map<string, number>> {
    const rows = await manager
      .createQueryBuilder(AgentEntity, 'a')
      .select('a.workspace_id', 'workspace_id')
      .addSelect('COUNT(*)::int', 'count')
      .where('a.user_id = :userId', { userId })
      .groupBy('a.workspace_id')
      .getRawMany<{ workspace_id: string; count: number }>();
    return new Map(rows.map((r) => [r.workspace_id, r.count]));
  }
}

function invalidIds(message: string): ValidationFailedError {
  return new ValidationFailedError(message, [{ field: 'workspace_ids', message }]);
}

import { Injectable } from '@nestjs/common';
import { DeleteWorkspaceResponse, UpdateWorkspaceMessage, WorkspaceDto } from '@aas/contracts';
import { RowRead, Transactions, afterCommit } from '@aas/platform';
import { ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { removeAgents } from '../agents/agent-removal';
import { AgentStore } from '../agents/agent.store';
import { AccessAnnouncer } from '../common/access-announcer';
import { isUuid } from '../common/is-uuid';
import { USER_QUOTAS, UserQuotas } from '../quotas/user-quotas';
import { defaultWorkspaceOf } from './default-workspace';
import { reorderPositions } from './workspace-order';
import { WorkspaceEntity } from '../database/workspace.entity';
import { toWorkspaceDto } from './workspace.mapper';
import { WorkspaceStore } from './workspace.store';

@Injectable()
export class WorkspacesService {
  constructor(
    private readonly workspaces: WorkspaceStore,
    private readonly agents: AgentStore,
    private readonly transactions: Transactions,
    private readonly quotas: UserQuotas,
    private readonly announcer: AccessAnnouncer,
  ) {}

  /** By position, then creation; agent_count is counted, never stored, so it cannot drift. */
  async list(userId: string): Promise<WorkspaceDto[]> {
    await defaultWorkspaceOf(this.workspaces, userId);
    const workspaces = await this.workspaces.listOrdered(userId);
    const counts = await this.agents.countByWorkspace(userId);
    return workspaces.map((w) => toWorkspaceDto(w, counts.get(w.id) ?? 0));
  }

  async create(userId: string, name: string): Promise<WorkspaceDto> {
    const workspace = await this.transactions.run(async (tx) => {
      // The user's row first, as every creation of the user takes it (any other order could deadlock);
      // counted once the default workspace exists, since it counts too.
      await this.quotas.lockUser(tx, userId);
      await defaultWorkspaceOf(this.workspaces, userId, tx);
      await this.quotas.check(tx, userId, USER_QUOTAS.workspaces);
      // Serialises creations of one user, so each new workspace gets a distinct last position.
      await this.workspaces.lockOrder(tx, userId);
      const max = await this.workspaces.maxPosition(tx, userId);
      const now = new Date();
      return this.workspaces.insert(tx, {
        userId,
        name,
        iconConfig: null,
        position: (max ?? -1) + 1,
        isDefault: false,
        createdAt: now,
        updatedAt: now,
      });
    });
    return toWorkspaceDto(workspace, 0);
  }

  async update(message: UpdateWorkspaceMessage): Promise<WorkspaceDto> {
    const workspace = await this.find(message.user_id, message.workspace_id);
    workspace.name = message.name;
    if (message.icon_config !== undefined) workspace.iconConfig = message.icon_config;
    if (message.run_retention_days !== undefined) workspace.runRetentionDays = message.run_retention_days;
    workspace.updatedAt = new Date();
    await this.workspaces.save(workspace);
    const count = await this.agents.countInWorkspace(workspace.id);
    return toWorkspaceDto(workspace, count);
  }

  /** Deletes the workspace and every agent in it (with their cascade). The default workspace stays. */
  async delete(userId: string, workspaceId: string): Promise<DeleteWorkspaceResponse> {
    return this.transactions.run(async (tx) => {
      const workspace = await this.find(userId, workspaceId, { tx, lock: true });
      if (workspace.isDefault) return { deleted: false, error: 'The default workspace cannot be deleted' };
      const agentIds = await this.agents.idsInWorkspace(tx, userId, workspace.id);
      const removed = await removeAgents(this.agents, tx, userId, agentIds);
      await this.workspaces.delete(tx, workspace.id);
      // Once committed, the gateways end the open event streams on its agents.
      afterCommit(tx, () => this.announcer.agentsDeleted(userId, removed));
      return { deleted: true, error: null };
    });
  }

  async reorder(userId: string, workspaceIds: string[]): Promise<{ success: boolean }> {
    if (new Set(workspaceIds).size !== workspaceIds.length) throw invalidIds('workspace_ids must not repeat an id');
    await this.transactions.run(async (tx) => {
      await this.workspaces.lockOrder(tx, userId);
      const current = (await this.workspaces.listOrdered(userId, tx)).map((w) => w.id);
      const owned = new Set(current);
      const foreign = workspaceIds.filter((id) => !owned.has(id));
      if (foreign.length > 0) throw invalidIds(`workspace_ids contains ids that are not your workspaces: ${foreign.join(', ')}`);
      await this.workspaces.setPositions(tx, reorderPositions(current, workspaceIds), new Date());
    });
    return { success: true };
  }

  private async find(userId: string, workspaceId: string, read: RowRead = {}): Promise<WorkspaceEntity> {
    const workspace = isUuid(workspaceId) ? await this.workspaces.findOwned(userId, workspaceId, read) : null;
    if (!workspace) throw new ResourceNotFoundError('Workspace', workspaceId);
    return workspace;
  }
}

function invalidIds(message: string): ValidationFailedError {
  return new ValidationFailedError(message, [{ field: 'workspace_ids', message }]);
}

import { Injectable } from '@nestjs/common';
import {
  AGENT_LIST_DEFAULT_LIMIT,
  AgentDto,
  AgentListResponse,
  CreateAgentMessage,
  ListAgentsMessage,
  SuccessResponse,
  UpdateAgentMessage,
} from '@aas/contracts';
import { RowRead, Transaction, Transactions, afterCommit } from '@aas/platform';
import { ConflictError, ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { AccessAnnouncer } from '../common/access-announcer';
import { isUuid } from '../common/is-uuid';
import { USER_QUOTAS, UserQuotas } from '../quotas/user-quotas';
import { defaultWorkspaceOf } from '../workspaces/default-workspace';
import { WorkspaceStore } from '../workspaces/workspace.store';
import { decodeAgentCursor, encodeAgentCursor } from './agent-cursor';
import { AgentEntity } from '../database/agent.entity';
import { toAgentDto } from './agent.mapper';
import { removeAgents } from './agent-removal';
import { AgentStore } from './agent.store';

@Injectable()
export class AgentsService {
  constructor(
    private readonly agents: AgentStore,
    private readonly workspaces: WorkspaceStore,
    private readonly transactions: Transactions,
    private readonly quotas: UserQuotas,
    private readonly announcer: AccessAnnouncer,
  ) {}

  /** Oldest first, paged by an opaque cursor (see agent-cursor.ts). */
  async list(query: ListAgentsMessage): Promise<AgentListResponse> {
    const limit = query.limit || AGENT_LIST_DEFAULT_LIMIT;
    const afterSeq = query.cursor === undefined ? undefined : decodeAgentCursor(query.cursor);
    if (query.workspace_id !== undefined && !isUuid(query.workspace_id)) return { agents: [], next_cursor: null };
    const rows = await this.agents.page({
      userId: query.user_id,
      take: limit + 1,
      afterSeq,
      workspaceId: query.workspace_id,
      policyType: query.policy_type,
    });
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return { agents: page.map(toAgentDto), next_cursor: hasMore ? encodeAgentCursor(page[page.length - 1].seq) : null };
  }

  async create(message: CreateAgentMessage): Promise<AgentDto> {
    const userId = message.user_id;
    if (message.owner_user_id !== undefined && message.owner_user_id !== userId) {
      throw invalid('owner_user_id', 'owner_user_id must be your own user id');
    }
    const agent = await this.transactions.run(async (tx) => {
      await this.quotas.reserve(tx, userId, USER_QUOTAS.agents);
      const workspaceId = await this.targetWorkspace(tx, userId, message.workspace_id);
      if (message.derived_from_agent_id !== undefined && !(await this.owns(tx, userId, message.derived_from_agent_id))) {
        throw invalid('derived_from_agent_id', 'derived_from_agent_id is not one of your agents');
      }
      // Undone with the rest (the end of onboarding included) if the id is taken.
      const created = await this.agents.insertAndOnboard(tx, {
        id: message.agent_id ?? crypto.randomUUID(),
        userId,
        workspaceId,
        ownerUserId: message.owner_user_id ?? null,
        isSubagent: message.is_subagent ?? false,
        derivedFromAgentId: message.derived_from_agent_id ?? null,
      });
      if (!created) throw new ConflictError(`An agent with id ${message.agent_id} already exists`);
      return created;
    });
    return toAgentDto(agent);
  }

  async get(userId: string, agentId: string): Promise<AgentDto> {
    const agent = isUuid(agentId) ? await this.agents.findOwn(userId, agentId) : null;
    if (!agent) throw new ResourceNotFoundError('Agent', agentId);
    return toAgentDto(agent);
  }

  /**
   * Once this answers, every service treats the agent as gone (they ask here); once it commits, the
   * gateways are told, and the open event streams on it end.
   */
  async delete(userId: string, agentId: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      await this.find(userId, agentId, { tx, lock: true });
      await removeAgents(this.agents, tx, userId, [agentId]);
      afterCommit(tx, () => this.announcer.agentsDeleted(userId, [agentId]));
    });
  }

  async move(userId: string, agentId: string, workspaceId: string): Promise<SuccessResponse> {
    return this.transactions.run(async (tx) => {
      await this.find(userId, agentId, { tx, lock: true });
      const target = isUuid(workspaceId) ? await this.workspaces.findOwned(userId, workspaceId, { tx }) : null;
      if (!target) return { success: false, error: `Workspace ${workspaceId} not found` };
      await this.agents.moveTo(tx, agentId, target.id);
      return { success: true, error: null };
    });
  }

  /** A person renames the agent (PATCH); the name a build run gives it later replaces this one, and the other way round. */
  async update(message: UpdateAgentMessage): Promise<AgentDto> {
    const agent = await this.transactions.run(async (tx) => {
      await this.find(message.user_id, message.agent_id, { tx, lock: true });
      await this.agents.rename(tx, message.agent_id, message.agent_name.name, message.agent_name.explanation ?? null);
      return this.find(message.user_id, message.agent_id, { tx });
    });
    return toAgentDto(agent);
  }

  /** The caller's agent, or a 404; `lock` serialises writers of the same agent. */
  async find(userId: string, agentId: string, read: RowRead = {}): Promise<AgentEntity> {
    const agent = isUuid(agentId) ? await this.agents.find(userId, agentId, read) : null;
    if (!agent) throw new ResourceNotFoundError('Agent', agentId);
    return agent;
  }

  private async targetWorkspace(tx: Transaction, userId: string, workspaceId: string | undefined): Promise<string> {
    if (workspaceId === undefined) return (await defaultWorkspaceOf(this.workspaces, userId, tx)).id;
    const workspace = isUuid(workspaceId) ? await this.workspaces.findOwned(userId, workspaceId, { tx }) : null;
    if (!workspace) throw invalid('workspace_id', 'workspace_id is not one of your workspaces');
    return workspace.id;
  }

  private async owns(tx: Transaction, userId: string, agentId: string): Promise<boolean> {
    return isUuid(agentId) && (await this.agents.exists(userId, agentId, tx));
  }
}

function invalid(field: string, message: string): ValidationFailedError {
  return new ValidationFailedError(message, [{ field, message }]);
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AGENT_LIST_DEFAULT_LIMIT,
  AgentDto,
  AgentListResponse,
  CreateAgentMessage,
  ListAgentsMessage,
  SuccessResponse,
} from '@aas/contracts';
import { ConflictError, ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { DataSource, EntityManager } from 'typeorm';
import { AccessAnnouncer } from '../common/access-announcer';
import { isUuid } from '../common/is-uuid';
import { OutboxRelay, PreparedEntityQuery, entityFromRow } from '@aas/platform';
import { USER_QUOTAS, UserQuotas } from '../quotas/user-quotas';
import { defaultWorkspaceOf } from '../workspaces/default-workspace';
import { WorkspaceEntity } from '../workspaces/workspace.entity';
import { decodeAgentCursor, encodeAgentCursor } from './agent-cursor';
import { AgentEntity } from './agent.entity';
import { toAgentDto } from './agent.mapper';
import { removeAgents } from './agent-removal';

@Injectable()
export class AgentsService {
  /** The read behind GET /v1/agents/{id}, the API's hottest. */
  private readonly ownAgent: PreparedEntityQuery<AgentEntity>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRelay,
    private readonly quotas: UserQuotas,
    private readonly announcer: AccessAnnouncer,
  ) {
    this.ownAgent = new PreparedEntityQuery(dataSource, AgentEntity, 'agents.own-agent', 'id = $1 AND user_id = $2');
  }

  /** Oldest first, paged by an opaque cursor (see agent-cursor.ts). */
  async list(query: ListAgentsMessage): Promise<AgentListResponse> {
    const limit = query.limit || AGENT_LIST_DEFAULT_LIMIT;
    const qb = this.dataSource
      .getRepository(AgentEntity)
      .createQueryBuilder('a')
      .where('a.user_id = :userId', { userId: query.user_id })
      .orderBy('a.seq', 'ASC')
      .limit(limit + 1);
    if (query.cursor !== undefined) qb.andWhere('a.seq > :after', { after: decodeAgentCursor(query.cursor) });
    if (query.workspace_id !== undefined) {
      if (!isUuid(query.workspace_id)) return { agents: [], next_cursor: null };
      qb.andWhere('a.workspace_id = :workspaceId', { workspaceId: query.workspace_id });
    }
    if (query.policy_type !== undefined) qb.andWhere('a.policy_type = :policyType', { policyType: query.policy_type });
    const rows = await qb.getMany();
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return { agents: page.map(toAgentDto), next_cursor: hasMore ? encodeAgentCursor(page[page.length - 1].seq) : null };
  }

  async create(message: CreateAgentMessage): Promise<AgentDto> {
    const userId = message.user_id;
    if (message.owner_user_id !== undefined && message.owner_user_id !== userId) {
      throw invalid('owner_user_id', 'owner_user_id must be your own user id');
    }
    const agent = await this.dataSource.transaction(async (manager) => {
      await this.quotas.reserve(manager, userId, USER_QUOTAS.agents);
      const workspaceId = await this.targetWorkspace(manager, userId, message.workspace_id);
      if (message.derived_from_agent_id !== undefined && !(await this.owns(manager, userId, message.derived_from_agent_id))) {
        throw invalid('derived_from_agent_id', 'derived_from_agent_id is not one of your agents');
      }
      // One statement for the agent with its defaults, and for the end of the user's onboarding (a no-op
      // after the first agent; undone with the rest if the id is taken).
      const [row] = await manager.query(
        `WITH onboarded AS (UPDATE users SET onboarded_at = now() WHERE id = $2 AND onboarded_at IS NULL)
         INSERT INTO agents (id, user_id, workspace_id, owner_user_id, is_subagent, derived_from_agent_id)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING *`,
        [
          message.agent_id ?? crypto.randomUUID(),
          userId,
          workspaceId,
          message.owner_user_id ?? null,
          message.is_subagent ?? false,
          message.derived_from_agent_id ?? null,
        ],
      );
      if (!row) throw new ConflictError(`An agent with id ${message.agent_id} already exists`);
      return entityFromRow(this.dataSource, AgentEntity, row);
    });
    return toAgentDto(agent);
  }

  async get(userId: string, agentId: string): Promise<AgentDto> {
    const agent = isUuid(agentId) ? await this.ownAgent.one([agentId, userId]) : null;
    if (!agent) throw new ResourceNotFoundError('Agent', agentId);
    return toAgentDto(agent);
  }

  /** Once this answers, every service treats the agent as gone (they ask here); the open event streams on it end. */
  async delete(userId: string, agentId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.find(manager, userId, agentId, true);
      await removeAgents(manager, userId, [agentId]);
    });
    this.outbox.kick();
    await this.announcer.agentsDeleted(userId, [agentId]);
  }

  async move(userId: string, agentId: string, workspaceId: string): Promise<SuccessResponse> {
    return this.dataSource.transaction(async (manager) => {
      await this.find(manager, userId, agentId, true);
      const target = isUuid(workspaceId) ? await manager.findOneBy(WorkspaceEntity, { id: workspaceId, userId }) : null;
      if (!target) return { success: false, error: `Workspace ${workspaceId} not found` };
      await manager.update(AgentEntity, { id: agentId }, { workspaceId: target.id });
      return { success: true, error: null };
    });
  }

  /** The caller's agent, or a 404; `lock` serialises writers of the same agent. */
  async find(manager: EntityManager, userId: string, agentId: string, lock = false): Promise<AgentEntity> {
    const agent = isUuid(agentId)
      ? await manager.findOne(AgentEntity, { where: { id: agentId, userId }, lock: lock ? { mode: 'pessimistic_write' } : undefined })
      : null;
    if (!agent) throw new ResourceNotFoundError('Agent', agentId);
    return agent;
  }

  private async targetWorkspace(manager: EntityManager, userId: string, workspaceId: string | undefined): Promise<string> {
    if (workspaceId === undefined) return (await defaultWorkspaceOf(manager, userId)).id;
    const workspace = isUuid(workspaceId) ? await manager.findOneBy(WorkspaceEntity, { id: workspaceId, userId }) : null;
    if (!workspace) throw invalid('workspace_id', 'workspace_id is not one of your workspaces');
    return workspace.id;
  }

  private async owns(manager: EntityManager, userId: string, agentId: string): Promise<boolean> {
    return isUuid(agentId) && (await manager.existsBy(AgentEntity, { id: agentId, userId }));
  }
}

function invalid(field: string, message: string): ValidationFailedError {
  return new ValidationFailedError(message, [{ field, message }]);
}

import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AgentContext,
  AgentContextMessage,
  AgentsPatterns,
  AgentStartContextsMessage,
  AgentStartContextsResponse,
  HandlesRequest,
  LiveAgentsMessage,
  LiveAgentsResponse,
  OwnedAgent,
  OwnedAgentMessage,
  RunRetentionsMessage,
  RunRetentionsResponse,
} from '@aas/contracts';
import { ResourceNotFoundError } from '@aas/problem-details';
import { isUuid } from '../common/is-uuid';
import { AgentRunsStore } from './agent-runs.store';

/**
 * What runs-service needs of an agent to start and execute a run; another user's agent is a 404.
 * Every other service asks here whether an agent exists (and which generation it is), so a deleted
 * agent is gone for all of them as soon as its row is.
 */
@Controller()
export class AgentContextHandlers {
  constructor(private readonly store: AgentRunsStore) {}

  /** Asked on every request about an agent by the service that holds its runs, schedule, triggers or webhooks. */
  @HandlesRequest(AgentsPatterns.GetOwnedAgent)
  async owned(@Payload() message: OwnedAgentMessage): Promise<OwnedAgent> {
    const agent = isUuid(message.agent_id) ? await this.store.owned(message.agent_id, message.user_id) : undefined;
    if (!agent) throw new ResourceNotFoundError('Agent', message.agent_id);
    return agent;
  }

  /** Asked once per run executed: one query, agent, owner and instructions joined. */
  @HandlesRequest(AgentsPatterns.GetAgentForRun)
  async context(@Payload() message: AgentContextMessage): Promise<AgentContext> {
    const row = isUuid(message.agent_id) ? await this.store.context(message.agent_id, message.user_id) : undefined;
    if (!row) throw new ResourceNotFoundError('Agent', message.agent_id);
    return {
      agent_id: row.agent_id,
      generation: Number(row.generation),
      user_email: row.user_email,
      deployment_state: row.deployment_state,
      instructions: row.content === null ? null : { content: row.content, plan_steps: row.plan_steps ?? [], version_id: Number(row.version_id) },
    };
  }

  /** Many agents in one query; one that is gone or another user's is simply absent from the answer. */
  @HandlesRequest(AgentsPatterns.GetAgentsForRunStarts)
  async startContexts(@Payload() message: AgentStartContextsMessage): Promise<AgentStartContextsResponse> {
    if (message.agents.length === 0) return { agents: [] };
    return { agents: await this.store.startContexts(message.agents) };
  }

  /** Bounded by the agents quota (QUOTA_AGENTS_PER_USER), so one answer carries them all. */
  @HandlesRequest(AgentsPatterns.ListLiveAgents)
  async liveAgents(@Payload() message: LiveAgentsMessage): Promise<LiveAgentsResponse> {
    const only = { workspaceId: message.workspace_id, agentId: message.agent_id };
    return { agents: await this.store.liveAgents(message.user_id, only) };
  }

  /** Once per retention purge: only the workspaces that set their own retention, whichever user's. */
  @HandlesRequest(AgentsPatterns.RunRetentions)
  async runRetentions(@Payload() _message: RunRetentionsMessage): Promise<RunRetentionsResponse> {
    return { retentions: await this.store.runRetentions() };
  }
}

import { Injectable } from '@nestjs/common';
import { AgentContext, AgentsPatterns } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';

/** The caller's agents, as agents-service (which owns agents) knows them. */
@Injectable()
export class OwnedAgents {
  constructor(private readonly services: ServiceClient) {}

  /** The user's agent; a 404 (from agents-service) when it is unknown or another user's. */
  get(userId: string, agentId: string): Promise<AgentContext> {
    return this.services.request<AgentContext>(AgentsPatterns.GetAgentForRun, { user_id: userId, agent_id: agentId });
  }
}

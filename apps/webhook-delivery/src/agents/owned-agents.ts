import { Injectable } from '@nestjs/common';
import { AgentsPatterns, OwnedAgent } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';

/** The caller's agents, as agents-service (which owns agents) knows them. */
@Injectable()
export class OwnedAgents {
  constructor(private readonly services: ServiceClient) {}

  /** The user's agent and its generation; a 404 (from agents-service) when it is unknown, deleted or another user's. */
  get(userId: string, agentId: string): Promise<OwnedAgent> {
    return this.services.request(AgentsPatterns.GetOwnedAgent, { user_id: userId, agent_id: agentId });
  }
}

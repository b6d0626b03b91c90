import { Injectable } from '@nestjs/common';
import { AgentsPatterns, OwnedAgent, RUN_START_BATCH_MAX } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';

/** The caller's agents, as agents-service (which owns agents) knows them. */
@Injectable()
export class OwnedAgents {
  constructor(private readonly services: ServiceClient) {}

  /** The user's agent; a 404 (from agents-service) when it is unknown or another user's. */
  get(userId: string, agentId: string): Promise<OwnedAgent> {
    return this.services.request(AgentsPatterns.GetOwnedAgent, { user_id: userId, agent_id: agentId });
  }

  /** The current generation of each of the user's agents among `agentIds`; unknown and others' agents are left out. */
  async generationsOf(userId: string, agentIds: string[]): Promise<Map<string, number>> {
    const generations = new Map<string, number>();
    for (let i = 0; i < agentIds.length; i += RUN_START_BATCH_MAX) {
      const agents = agentIds.slice(i, i + RUN_START_BATCH_MAX).map((agentId) => ({ user_id: userId, agent_id: agentId }));
      const { agents: found } = await this.services.request(AgentsPatterns.GetAgentsForRunStarts, { agents });
      for (const agent of found) generations.set(agent.agent_id, agent.generation);
    }
    return generations;
  }
}

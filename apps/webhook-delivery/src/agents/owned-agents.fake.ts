import { OwnedAgent } from '@aas/contracts';
import { ResourceNotFoundError } from '@aas/problem-details';
import { OwnedAgents } from './owned-agents';

/** agents-service in memory: the agents each user owns and their generations; left out of the build. */
export class FakeOwnedAgents implements Pick<OwnedAgents, 'get'> {
  private readonly agents = new Map<string, { userId: string; generation: number }>();

  /** The user owns the agent, of `generation`: a new agent that took the id has the next one. */
  own(userId: string, agentId: string, generation = 1): void {
    this.agents.set(agentId, { userId, generation });
  }

  /** The agent is deleted: agents-service answers 404 for it at once. */
  remove(agentId: string): void {
    this.agents.delete(agentId);
  }

  async get(userId: string, agentId: string): Promise<OwnedAgent> {
    const agent = this.agents.get(agentId);
    if (!agent || agent.userId !== userId) throw new ResourceNotFoundError('Agent', agentId);
    return { agent_id: agentId, generation: agent.generation, deployment_state: 'deployed' };
  }
}

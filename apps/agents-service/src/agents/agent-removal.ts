import { AgentDeletedEvent, EventNames } from '@aas/contracts';
import { EntityManager, In } from 'typeorm';
import { recordEvent } from '@aas/platform';
import { AgentEntity } from './agent.entity';

/**
 * Deletes agents (their instructions go by cascade) and records one
 * `agent.deleted` per agent in the same transaction, so runs, schedules and
 * webhooks of each are removed by their services.
 */
export async function removeAgents(manager: EntityManager, userId: string, agentIds: string[]): Promise<void> {
  if (agentIds.length === 0) return;
  await manager.delete(AgentEntity, { id: In(agentIds), userId });
  const deletedAt = new Date().toISOString();
  for (const agentId of agentIds) {
    const event: AgentDeletedEvent = { agent_id: agentId, user_id: userId, deleted_at: deletedAt };
    await recordEvent(manager, EventNames.AgentDeleted, event);
  }
}

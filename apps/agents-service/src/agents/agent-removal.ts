import { AgentDeletedEvent, EventNames } from '@aas/contracts';
import { EntityManager } from 'typeorm';
import { recordEvent } from '@aas/platform';

/**
 * Deletes agents (their instructions go by cascade) and records one
 * `agent.deleted` per agent in the same transaction, so runs, schedules and
 * webhooks of each are removed by their services. The event carries the agent's generation, so
 * a consumer removes nothing of an agent created later with the same id.
 */
export async function removeAgents(manager: EntityManager, userId: string, agentIds: string[]): Promise<string[]> {
  if (agentIds.length === 0) return [];
  const deleted: Array<{ id: string; seq: string }> = (
    await manager.query('DELETE FROM agents WHERE id = ANY($1::uuid[]) AND user_id = $2 RETURNING id, seq', [agentIds, userId])
  )[0];
  const deletedAt = new Date().toISOString();
  for (const agent of deleted) {
    const event: AgentDeletedEvent = { agent_id: agent.id, user_id: userId, deleted_at: deletedAt, generation: Number(agent.seq) };
    await recordEvent(manager, EventNames.AgentDeleted, event);
  }
  return deleted.map((agent) => agent.id);
}

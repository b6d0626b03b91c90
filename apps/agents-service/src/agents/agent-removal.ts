import { AgentDeletedEvent } from '@aas/contracts';
import { AgentStore } from './agent.store';
import { Transaction } from '@aas/platform';

/**
 * Deletes agents (their instructions go by cascade) and records one
 * `agent.deleted` per agent in the same transaction, so runs, schedules and
 * webhooks of each are removed by their services. The event carries the agent's generation, so
 * a consumer removes nothing of an agent created later with the same id.
 */
export async function removeAgents(agents: AgentStore, tx: Transaction, userId: string, agentIds: string[]): Promise<string[]> {
  if (agentIds.length === 0) return [];
  const deleted = await agents.delete(tx, userId, agentIds);
  const deletedAt = new Date().toISOString();
  const events = deleted.map(
    (agent): AgentDeletedEvent => ({ agent_id: agent.id, user_id: userId, deleted_at: deletedAt, generation: agent.generation }),
  );
  await agents.recordDeleted(tx, events);
  return deleted.map((agent) => agent.id);
}

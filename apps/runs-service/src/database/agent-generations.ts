import { AgentDeletedEvent } from '@aas/contracts';
import { EntityManager } from 'typeorm';

/** A generation of an agent about to have runs stored (OwnedAgent.generation). */
export interface GenerationClaim {
  agentId: string;
  userId: string;
  generation: number;
}

export interface ClaimOutcome {
  /** Agent ids whose claim is refused: the agent was deleted, or a newer one holds the id. */
  refused: Set<string>;
  /** Unfinished runs of older generations that were deleted: their workers should stop. */
  stopped: string[];
}

interface HeldRow {
  agent_id: string;
  generation: string;
  deleted_at: Date | null;
}

/**
 * The runs of one agent id always belong to one generation, the one `agent_generations` holds for
 * it (runs recorded before generations existed have none and belong to the agent of that time).
 * A newer generation (a new agent that took a deleted agent's id) takes the id over by deleting the
 * older generation's runs first, in the same transaction as its own, so numbers, counts and totals
 * stay per agent. A generation older than the one held, or one that was deleted, is refused.
 */
export async function claimAgentGenerations(manager: EntityManager, claims: GenerationClaim[]): Promise<ClaimOutcome> {
  const outcome: ClaimOutcome = { refused: new Set(), stopped: [] };
  const unique = [...new Map(claims.map((c) => [c.agentId, c])).values()].sort((a, b) => (a.agentId < b.agentId ? -1 : 1));
  if (unique.length === 0) return outcome;
  const ids = unique.map((c) => c.agentId);
  await manager.query(
    `INSERT INTO agent_generations (agent_id, user_id, generation)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::bigint[]) ON CONFLICT (agent_id) DO NOTHING`,
    [ids, unique.map((c) => c.userId), unique.map((c) => c.generation)],
  );
  const held: HeldRow[] = await manager.query(
    'SELECT agent_id, generation, deleted_at FROM agent_generations WHERE agent_id = ANY($1::uuid[]) ORDER BY agent_id FOR UPDATE',
    [ids],
  );
  const byId = new Map(held.map((row) => [row.agent_id, row]));
  for (const claim of unique) {
    const row = byId.get(claim.agentId)!;
    const generation = Number(row.generation);
    if (generation > claim.generation || (generation === claim.generation && row.deleted_at !== null)) {
      outcome.refused.add(claim.agentId);
    } else if (generation < claim.generation) {
      outcome.stopped.push(...(await deleteRunsOfAgent(manager, claim.agentId)));
      await manager.query('UPDATE agent_generations SET generation = $2, user_id = $3, deleted_at = NULL WHERE agent_id = $1', [
        claim.agentId,
        claim.generation,
        claim.userId,
      ]);
    }
  }
  return outcome;
}

/** The generation whose runs are held for this agent id, if any was claimed. */
export async function heldGeneration(manager: EntityManager, agentId: string): Promise<number | undefined> {
  const [row]: Array<{ generation: string }> = await manager.query('SELECT generation FROM agent_generations WHERE agent_id = $1', [
    agentId,
  ]);
  return row ? Number(row.generation) : undefined;
}

/**
 * agent.deleted: deletes the runs of that generation and older ones, and remembers the generation
 * as deleted (a late start of it is refused). Runs of a newer generation are not touched: only
 * runs without a generation (recorded before generations existed, so older than any) go then.
 * An event without a generation (from agents-service of an earlier version, during an upgrade)
 * deletes that user's runs of the agent, as before. Answers the unfinished runs deleted.
 */
export async function deleteRunsOfDeletedAgent(manager: EntityManager, event: AgentDeletedEvent): Promise<string[]> {
  const { agent_id: agentId, user_id: userId, generation } = event;
  if (generation === undefined) return deleteRunsOfAgent(manager, agentId, userId);
  await manager.query(
    `INSERT INTO agent_generations (agent_id, user_id, generation, deleted_at) VALUES ($1, $2, $3, now()) ON CONFLICT (agent_id) DO NOTHING`,
    [agentId, userId, generation],
  );
  const [row]: HeldRow[] = await manager.query('SELECT agent_id, generation, deleted_at FROM agent_generations WHERE agent_id = $1 FOR UPDATE', [
    agentId,
  ]);
  if (Number(row.generation) > generation) return deleteRunsWithoutGeneration(manager, agentId, userId);
  const stopped = await deleteRunsOfAgent(manager, agentId);
  await manager.query('UPDATE agent_generations SET generation = $2, user_id = $3, deleted_at = now() WHERE agent_id = $1', [
    agentId,
    generation,
    userId,
  ]);
  return stopped;
}

/** Forgets deleted agents' generations once no start of theirs can still be on its way (a day later). */
export async function purgeDeletedGenerations(manager: EntityManager): Promise<number> {
  const [, count]: [unknown, number] = await manager.query(
    `DELETE FROM agent_generations WHERE deleted_at < now() - interval '1 day'`,
  );
  return count;
}

/** Every run of the agent id (and its events, counter and remembered totals); answers those that were unfinished. */
async function deleteRunsOfAgent(manager: EntityManager, agentId: string, userId?: string): Promise<string[]> {
  const deleted: Array<{ id: string; is_finished: boolean }> = (
    await manager.query(
      `DELETE FROM runs WHERE agent_id = $1 AND ($2::uuid IS NULL OR user_id = $2) RETURNING id, is_finished`,
      [agentId, userId ?? null],
    )
  )[0];
  await manager.query('DELETE FROM agent_run_counters WHERE agent_id = $1', [agentId]);
  await manager.query('DELETE FROM run_list_totals WHERE agent_id = $1', [agentId]);
  await manager.query('DELETE FROM run_list_generations WHERE agent_id = $1', [agentId]);
  return deleted.filter((run) => !run.is_finished).map((run) => run.id);
}

async function deleteRunsWithoutGeneration(manager: EntityManager, agentId: string, userId: string): Promise<string[]> {
  const deleted: Array<{ id: string; is_finished: boolean }> = (
    await manager.query(
      'DELETE FROM runs WHERE agent_id = $1 AND user_id = $2 AND agent_generation IS NULL RETURNING id, is_finished',
      [agentId, userId],
    )
  )[0];
  return deleted.filter((run) => !run.is_finished).map((run) => run.id);
}

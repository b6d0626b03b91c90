import { TriggerSourceEvent } from '@aas/contracts';
import { TriggerEntity } from './trigger.entity';

/** Why a trigger was not inserted: its agent already had `held` triggers, the limit. */
export type TriggerInsertOutcome = { inserted: true } | { inserted: false; held: number };

/**
 * Every statement on the `triggers` table (postgres-trigger.store.ts); an
 * abstract class so that it is the injection token and a fake can stand in for it.
 */
export abstract class TriggerStore {
  /** The agent's triggers, oldest first. */
  abstract listOfAgent(userId: string, agentId: string): Promise<TriggerEntity[]>;

  abstract findOwned(userId: string, agentId: string, triggerId: string): Promise<TriggerEntity | null>;

  /** A webhook trigger by id alone (an inbound call names no user); an event trigger's id finds nothing. */
  abstract findWebhook(triggerId: string): Promise<TriggerEntity | null>;

  /**
   * The active event triggers a run end of `sourceAgentId` starts (always the same user's), following
   * that generation of the source (a run of an earlier agent with the id starts nothing), oldest first.
   */
  abstract activeFollowing(
    userId: string,
    sourceAgentId: string,
    sourceGeneration: number | null,
    event: TriggerSourceEvent,
  ): Promise<TriggerEntity[]>;

  /**
   * Inserts a trigger unless its agent already has `limit` (0: no limit); two creations never both take
   * the last slot. Answers how many the agent had when it was refused.
   */
  abstract insertWithin(trigger: TriggerEntity, limit: number): Promise<TriggerInsertOutcome>;

  abstract update(trigger: TriggerEntity, changes: Partial<TriggerEntity>): Promise<void>;

  abstract delete(trigger: TriggerEntity): Promise<void>;

  /**
   * A deleted agent's triggers, and the event triggers that followed it (they could never start again),
   * of the deleted generation or older: a new agent that took the id keeps its own.
   */
  abstract deleteOfAgent(userId: string, agentId: string, generation: number | undefined): Promise<void>;

  /** last_triggered_at of triggers that started a run. */
  abstract recordStarted(triggerIds: string[]): Promise<void>;

  /** last_error of triggers whose start was refused. */
  abstract recordErrors(errors: Array<{ triggerId: string; error: string }>): Promise<void>;
}

import { AgentDeletedEvent } from '@aas/contracts';
import { AgentEntity } from '../database/agent.entity';
import { RowRead, Transaction } from '@aas/platform';

export type NewAgent = Pick<AgentEntity, 'id' | 'userId' | 'workspaceId' | 'ownerUserId' | 'isSubagent' | 'derivedFromAgentId'>;

/** One page of a user's agents in insertion order, after `afterSeq`, filtered by what is given. */
export interface AgentPageQuery {
  userId: string;
  take: number;
  afterSeq?: string;
  workspaceId?: string;
  policyType?: string;
}

/** An agent deleted, with the generation (its `seq`) it had. */
export interface DeletedAgent {
  id: string;
  generation: number;
}

/**
 * Every statement on the `agents` table of the catalogue, and the `agent.deleted` events in the outbox
 * (postgres-agent.store.ts); an abstract class, so that it is the injection token and a fake can stand in for it.
 */
export abstract class AgentStore {
  /** The read behind GET /v1/agents/{id}, the API's hottest: one named prepared statement. */
  abstract findOwn(userId: string, agentId: string): Promise<AgentEntity | null>;
  abstract find(userId: string, agentId: string, read?: RowRead): Promise<AgentEntity | null>;
  abstract exists(userId: string, agentId: string, tx?: Transaction): Promise<boolean>;
  abstract page(query: AgentPageQuery): Promise<AgentEntity[]>;
  /**
   * The agent with its column defaults and the end of its user's onboarding (a no-op after the first
   * agent), in one statement; null, and neither, when the id is taken.
   */
  abstract insertAndOnboard(tx: Transaction, agent: NewAgent): Promise<AgentEntity | null>;
  abstract moveTo(tx: Transaction, agentId: string, workspaceId: string): Promise<void>;
  abstract rename(tx: Transaction, agentId: string, name: string, explanation: string | null): Promise<void>;
  /** Deletes those of the agents that are the user's (their instructions go by cascade); answers them. */
  abstract delete(tx: Transaction, userId: string, agentIds: string[]): Promise<DeletedAgent[]>;
  /** Records the events in the outbox, in `tx`: they are published once it commits. */
  abstract recordDeleted(tx: Transaction, events: AgentDeletedEvent[]): Promise<void>;
  abstract idsInWorkspace(tx: Transaction, userId: string, workspaceId: string): Promise<string[]>;
  /** How many agents the user has in each workspace that has any. */
  abstract countByWorkspace(userId: string): Promise<Map<string, number>>;
  abstract countInWorkspace(workspaceId: string): Promise<number>;
}

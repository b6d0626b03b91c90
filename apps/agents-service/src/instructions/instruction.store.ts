import { InstructionVersionEntity } from '../database/instruction-version.entity';
import { InstructionsEntity } from '../database/instructions.entity';
import { Transaction } from '@aas/platform';

export type NewInstructionVersion = Omit<InstructionVersionEntity, 'id'>;

/** A version without its plan steps: the history does not show them, and they can be most of a version's bytes. */
export type ListedInstructionVersion = Omit<InstructionVersionEntity, 'planSteps'>;

/**
 * Every statement on the `instructions` (an agent's current ones) and `instruction_versions` tables
 * (postgres-instruction.store.ts); an abstract class, so that it is the injection token and a fake can stand in for it.
 */
export abstract class InstructionStore {
  /** Inside `tx` when given: a read within a transaction must not wait for a second connection of the pool. */
  abstract current(agentId: string, tx?: Transaction): Promise<InstructionsEntity | null>;
  /** The new version, numbered after every earlier one of any agent. */
  abstract addVersion(tx: Transaction, version: NewInstructionVersion): Promise<InstructionVersionEntity>;
  /** Makes the version the agent's current instructions (a copy of it). */
  abstract makeCurrent(tx: Transaction, version: InstructionVersionEntity): Promise<void>;
  /** Deletes every version of the agent older than its newest `kept`. */
  abstract deleteAllButNewest(tx: Transaction, agentId: string, kept: number): Promise<void>;
  /** The agent's version `versionId` if it is among its newest `kept` (every one when absent), else null. */
  abstract keptVersion(agentId: string, versionId: string, kept: number | undefined): Promise<InstructionVersionEntity | null>;
  /** Newest first, at most `take` (every one when absent). */
  abstract versions(agentId: string, take: number | undefined): Promise<ListedInstructionVersion[]>;
}

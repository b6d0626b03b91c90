import { randomUUID } from 'node:crypto';
import { AgentEntity } from '../agents/agent.entity';
import { ApiKeyEntity } from '../api-keys/api-key.entity';
import { InstructionVersionEntity } from '../instructions/instruction-version.entity';
import { InstructionsEntity } from '../instructions/instructions.entity';
import { WorkspaceEntity } from '../workspaces/workspace.entity';
import { Transaction, Transactions } from '@aas/platform';

export interface UserRow {
  id: string;
  email: string;
  createdAt: Date;
  onboardedAt: Date | null;
  passwordHash: string | null;
}

/** An agent with the snapshot positions its run summary reflects (columns the entity does not map). */
export interface AgentRow extends AgentEntity {
  latestRunNumber: number;
  latestRunSeq: number;
  latestBuildRunNumber: number;
  latestBuildRunSeq: number;
}

export interface SessionRow {
  id: string;
  tokenHash: string;
  userId: string;
  createdAt: number;
  expiresAt: number;
}

export interface Tables {
  users: UserRow[];
  apiKeys: ApiKeyEntity[];
  workspaces: WorkspaceEntity[];
  agents: AgentRow[];
  instructions: InstructionsEntity[];
  instructionVersions: InstructionVersionEntity[];
  outbox: Array<{ event: string; payload: object }>;
  sessions: SessionRow[];
  setupTokens: Array<{ tokenHash: string; expiresAt: number }>;
  /** The last value of each sequence (agents.seq, instruction_versions.id). */
  sequences: { agentSeq: number; versionId: number };
}

function emptyTables(): Tables {
  return {
    users: [],
    apiKeys: [],
    workspaces: [],
    agents: [],
    instructions: [],
    instructionVersions: [],
    outbox: [],
    sessions: [],
    setupTokens: [],
    sequences: { agentSeq: 0, versionId: 0 },
  };
}

/**
 * The agents schema in memory, for unit tests of the services with the stores' fakes
 * (`*.store.fake.ts`): what the fakes read and write, a clock the tests can move (PostgreSQL's
 * now() for the fakes), and transactions that roll back what their work wrote when it throws.
 */
export class InMemoryDatabase {
  tables = emptyTables();
  readonly transactions = new FakeTransactions(this);
  private clockOffsetMs = 0;
  private live = new Set<Transaction>();

  /** The database's clock. */
  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  advanceClock(ms: number): void {
    this.clockOffsetMs += ms;
  }

  /** A statement that must run in a transaction: refuses one that has ended (or never began). */
  inTransaction(tx: Transaction): void {
    if (!this.live.has(tx)) throw new Error('a statement ran outside its transaction');
  }

  async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const before = structuredClone(this.tables);
    const tx = { id: randomUUID() } as unknown as Transaction;
    this.live.add(tx);
    try {
      return await work(tx);
    } catch (error) {
      this.tables = before;
      throw error;
    } finally {
      this.live.delete(tx);
    }
  }

  /** A user as `users create` makes one. */
  addUser(email = `${randomUUID()}@example.test`, fields: Partial<UserRow> = {}): UserRow {
    const user: UserRow = { id: randomUUID(), email, createdAt: new Date(this.now()), onboardedAt: null, passwordHash: null, ...fields };
    this.tables.users.push(user);
    return user;
  }
}

export class FakeTransactions implements Transactions {
  constructor(private readonly db: InMemoryDatabase) {}

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }
}

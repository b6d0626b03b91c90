import { randomUUID } from 'node:crypto';
import { AgentEntity } from './agent.entity';
import { ApiKeyEntity } from './api-key.entity';
import { InstructionVersionEntity } from './instruction-version.entity';
import { InstructionsEntity } from './instructions.entity';
import { WorkspaceEntity } from './workspace.entity';
import { InMemoryTables } from '@aas/platform';

export interface UserRow {
  id: string;
  email: string;
  createdAt: Date;
  onboardedAt: Date | null;
  passwordHash: string | null;
  passwordChangedAt?: number;
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
  lastSeenAt: number;
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
 * The agents schema in memory (InMemoryTables: a movable clock, transactions that roll back), with
 * builders for its rows.
 */
export class InMemoryDatabase extends InMemoryTables<Tables> {
  constructor() {
    super(emptyTables);
  }

  /** The database's clock. */
  now(): number {
    return this.clockMs();
  }

  /** A user as `users create` makes one. */
  addUser(email = `${randomUUID()}@example.test`, fields: Partial<UserRow> = {}): UserRow {
    const user: UserRow = { id: randomUUID(), email, createdAt: new Date(this.now()), onboardedAt: null, passwordHash: null, ...fields };
    this.tables.users.push(user);
    return user;
  }
}

import { AgentDeletedEvent, EventNames } from '@aas/contracts';
import { AgentRow, InMemoryDatabase } from '../database/in-memory-database.fake';
import { AgentEntity } from '../database/agent.entity';
import { AgentPageQuery, AgentStore, DeletedAgent, NewAgent } from './agent.store';
import { RowRead, Transaction } from '@aas/platform';

export class FakeAgentStore implements AgentStore {
  constructor(private readonly db: InMemoryDatabase) {}

  private get rows(): AgentRow[] {
    return this.db.tables.agents;
  }

  async findOwn(userId: string, agentId: string): Promise<AgentEntity | null> {
    return this.find(userId, agentId);
  }

  async find(userId: string, agentId: string, read: RowRead = {}): Promise<AgentEntity | null> {
    if (read.tx) this.db.inTransaction(read.tx);
    const row = this.rows.find((a) => a.id === agentId && a.userId === userId);
    return row ? { ...row } : null;
  }

  async exists(userId: string, agentId: string): Promise<boolean> {
    return this.rows.some((a) => a.id === agentId && a.userId === userId);
  }

  async page(query: AgentPageQuery): Promise<AgentEntity[]> {
    return this.rows
      .filter(
        (a) =>
          a.userId === query.userId &&
          (query.afterSeq === undefined || BigInt(a.seq) > BigInt(query.afterSeq)) &&
          (query.workspaceId === undefined || a.workspaceId === query.workspaceId) &&
          (query.policyType === undefined || a.policyType === query.policyType),
      )
      .sort((a, b) => Number(a.seq) - Number(b.seq))
      .slice(0, query.take)
      .map((a) => ({ ...a }));
  }

  async insertAndOnboard(tx: Transaction, agent: NewAgent): Promise<AgentEntity | null> {
    this.db.inTransaction(tx);
    const user = this.db.tables.users.find((u) => u.id === agent.userId);
    if (!user) throw new Error('foreign key: no such user');
    if (!this.db.tables.workspaces.some((w) => w.id === agent.workspaceId)) throw new Error('foreign key: no such workspace');
    // The onboarding update is a CTE: PostgreSQL runs it whether or not the insert conflicts.
    user.onboardedAt ??= new Date(this.db.now());
    if (this.rows.some((a) => a.id === agent.id)) return null;
    const row: AgentRow = { ...newAgentDefaults(), ...agent, seq: String(++this.db.tables.sequences.agentSeq), createdAt: new Date(this.db.now()) };
    this.rows.push(row);
    return { ...row };
  }

  async moveTo(tx: Transaction, agentId: string, workspaceId: string): Promise<void> {
    this.db.inTransaction(tx);
    for (const row of this.rows) if (row.id === agentId) row.workspaceId = workspaceId;
  }

  async rename(tx: Transaction, agentId: string, name: string, explanation: string | null): Promise<void> {
    this.db.inTransaction(tx);
    for (const row of this.rows) {
      if (row.id !== agentId) continue;
      row.name = name;
      row.nameExplanation = explanation;
    }
  }

  async delete(tx: Transaction, userId: string, agentIds: string[]): Promise<DeletedAgent[]> {
    this.db.inTransaction(tx);
    const t = this.db.tables;
    const deleted = t.agents.filter((a) => agentIds.includes(a.id) && a.userId === userId);
    const gone = new Set(deleted.map((a) => a.id));
    t.agents = t.agents.filter((a) => !gone.has(a.id));
    t.instructions = t.instructions.filter((i) => !gone.has(i.agentId));
    t.instructionVersions = t.instructionVersions.filter((v) => !gone.has(v.agentId));
    return deleted.map((a) => ({ id: a.id, generation: Number(a.seq) }));
  }

  async recordDeleted(tx: Transaction, events: AgentDeletedEvent[]): Promise<void> {
    this.db.inTransaction(tx);
    for (const payload of events) this.db.tables.outbox.push({ event: EventNames.AgentDeleted, payload });
  }

  async idsInWorkspace(tx: Transaction, userId: string, workspaceId: string): Promise<string[]> {
    this.db.inTransaction(tx);
    return this.rows.filter((a) => a.workspaceId === workspaceId && a.userId === userId).map((a) => a.id);
  }

  async countByWorkspace(userId: string): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const a of this.rows) if (a.userId === userId) counts.set(a.workspaceId, (counts.get(a.workspaceId) ?? 0) + 1);
    return counts;
  }

  async countInWorkspace(workspaceId: string): Promise<number> {
    return this.rows.filter((a) => a.workspaceId === workspaceId).length;
  }
}

/** The column defaults of `agents` (migrations). */
export function newAgentDefaults(): Omit<AgentRow, 'id' | 'seq' | 'userId' | 'workspaceId' | 'createdAt'> {
  return {
    ownerUserId: null,
    isSubagent: false,
    derivedFromAgentId: null,
    unread: false,
    name: null,
    nameExplanation: null,
    iconConfig: null,
    policyType: null,
    activeBuildRunId: null,
    latestBuildRunId: null,
    latestInstructionBuildRunId: null,
    latestRunId: '',
    latestRunStatus: null,
    latestRunIsFinished: null,
    latestRunHasPendingInput: null,
    hasRuns: false,
    hasInstructionBuild: false,
    lastActivityAt: null,
    lastChatMessage: null,
    deploymentState: 'not_deployed',
    deployedAt: null,
    latestRunNumber: 0,
    latestRunSeq: -1,
    latestBuildRunNumber: 0,
    latestBuildRunSeq: -1,
  };
}

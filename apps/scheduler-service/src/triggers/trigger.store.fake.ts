import { TriggerSourceEvent } from '@aas/contracts';
import { TriggerEntity } from './trigger.entity';
import { TriggerInsertOutcome, TriggerStore } from './trigger.store';

/** A trigger row for tests: an active webhook trigger of generation 1, with `overrides`. */
export function triggerRow(overrides: Partial<TriggerEntity> & Pick<TriggerEntity, 'id' | 'agentId'>): TriggerEntity {
  const at = new Date('2026-01-01T00:00:00Z');
  return Object.assign(new TriggerEntity(), {
    agentGeneration: '1',
    userId: '0b6c1d8e-2f5a-4c3b-9d7e-1a2b3c4d5e6f',
    kind: 'webhook',
    name: '',
    status: 'active',
    messageTemplate: null,
    verification: 'none',
    tokenHash: null,
    secretSealed: null,
    sourceAgentId: null,
    sourceAgentGeneration: null,
    events: null,
    lastTriggeredAt: null,
    lastError: null,
    lastErrorAt: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  } satisfies TriggerEntity);
}

/** The triggers table in memory, for unit tests. Not built into the app (tsconfig.app.json leaves out *.fake.ts). */
export class FakeTriggerStore implements TriggerStore {
  readonly rows = new Map<string, TriggerEntity>();

  constructor(rows: TriggerEntity[] = []) {
    for (const row of rows) this.rows.set(row.id, row);
  }

  async listOfAgent(userId: string, agentId: string): Promise<TriggerEntity[]> {
    return this.all().filter((t) => t.userId === userId && t.agentId === agentId);
  }

  async findOwned(userId: string, agentId: string, triggerId: string): Promise<TriggerEntity | null> {
    return this.all().find((t) => t.id === triggerId && t.userId === userId && t.agentId === agentId) ?? null;
  }

  async findWebhook(triggerId: string): Promise<TriggerEntity | null> {
    return this.all().find((t) => t.id === triggerId && t.kind === 'webhook') ?? null;
  }

  async activeFollowing(userId: string, sourceAgentId: string, sourceGeneration: number | null, event: TriggerSourceEvent): Promise<TriggerEntity[]> {
    return this.all().filter(
      (t) =>
        t.kind === 'event' &&
        t.status === 'active' &&
        t.userId === userId &&
        t.sourceAgentId === sourceAgentId &&
        t.events!.includes(event) &&
        (sourceGeneration === null || Number(t.sourceAgentGeneration) === sourceGeneration),
    );
  }

  async insertWithin(trigger: TriggerEntity, limit: number): Promise<TriggerInsertOutcome> {
    const held = this.all().filter((t) => t.agentId === trigger.agentId).length;
    if (limit > 0 && held >= limit) return { inserted: false, held };
    this.rows.set(trigger.id, { ...trigger });
    return { inserted: true };
  }

  async update(trigger: TriggerEntity, changes: Partial<TriggerEntity>): Promise<void> {
    if (this.rows.has(trigger.id)) Object.assign(this.rows.get(trigger.id)!, changes, { updatedAt: new Date() });
  }

  async delete(trigger: TriggerEntity): Promise<void> {
    this.rows.delete(trigger.id);
  }

  async deleteOfAgent(userId: string, agentId: string, generation: number | undefined): Promise<void> {
    const upTo = (held: string | null) => generation === undefined || Number(held) <= generation;
    for (const t of this.all()) {
      if (t.userId !== userId) continue;
      if ((t.agentId === agentId && upTo(t.agentGeneration)) || (t.sourceAgentId === agentId && upTo(t.sourceAgentGeneration))) this.rows.delete(t.id);
    }
  }

  async recordStarted(triggerIds: string[]): Promise<void> {
    for (const id of triggerIds) if (this.rows.has(id)) this.rows.get(id)!.lastTriggeredAt = new Date();
  }

  async recordErrors(errors: Array<{ triggerId: string; error: string }>): Promise<void> {
    for (const { triggerId, error } of errors) {
      if (this.rows.has(triggerId)) Object.assign(this.rows.get(triggerId)!, { lastError: error, lastErrorAt: new Date() });
    }
  }

  private all(): TriggerEntity[] {
    return [...this.rows.values()];
  }
}

import { ScheduleFireEvent } from '@aas/contracts';
import { ScheduleEntity } from './schedule.entity';
import { EvaluationError, FireFailure, ScheduleMove, ScheduleStore, ScheduleTickTransaction, ScheduleValues } from './schedule.store';

/** A schedule row for tests: an active `skip`/`fire_once` schedule due at `nextRunAt`, with `overrides`. */
export function scheduleRow(overrides: Partial<ScheduleEntity> & Pick<ScheduleEntity, 'agentId'>): ScheduleEntity {
  const at = new Date('2026-01-01T00:00:00Z');
  return Object.assign(new ScheduleEntity(), {
    userId: '0b6c1d8e-2f5a-4c3b-9d7e-1a2b3c4d5e6f',
    agentGeneration: '1',
    cron: '0 * * * * ? *',
    timezone: null,
    overlap: 'skip',
    misfire: 'fire_once',
    catchUpWindowSeconds: null,
    paused: false,
    autoPaused: false,
    consecutiveFailures: 0,
    nextRunAt: null,
    activeRunId: null,
    lastError: null,
    lastErrorAt: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  } satisfies ScheduleEntity);
}

/**
 * The schedules table and the scheduler's outbox in memory, for unit tests: a tick's
 * writes commit when its work resolves and are dropped when it rejects, as in PostgreSQL.
 * Not built into the app (tsconfig.app.json leaves out *.fake.ts).
 */
export class FakeScheduleStore implements ScheduleStore {
  rows = new Map<string, ScheduleEntity>();
  /** The `schedule.fire` events committed ticks recorded, in order. */
  outbox: ScheduleFireEvent[] = [];
  /** Every failure recordFireFailures was given, and the threshold it was given. */
  readonly fireFailures: Array<FireFailure & { autoPauseAfter: number }> = [];
  readonly runEnds: Array<{ agentId: string; runId: string; verdict: string; autoPauseAfter: number; agentGeneration: number | null }> = [];

  constructor(rows: ScheduleEntity[] = []) {
    for (const row of rows) this.rows.set(row.agentId, row);
  }

  async findOwned(userId: string, agentId: string): Promise<ScheduleEntity | null> {
    const row = this.rows.get(agentId);
    return row && row.userId === userId ? { ...row } : null;
  }

  async listOwned(userId: string): Promise<ScheduleEntity[]> {
    return [...this.rows.values()].filter((r) => r.userId === userId).map((r) => ({ ...r }));
  }

  async findByAgents(agentIds: string[]): Promise<ScheduleEntity[]> {
    return agentIds.flatMap((id) => (this.rows.has(id) ? [{ ...this.rows.get(id)! }] : []));
  }

  async upsert(values: ScheduleValues): Promise<void> {
    this.rows.set(values.agentId, scheduleRow({ ...values, agentGeneration: String(values.agentGeneration) }));
  }

  async delete(userId: string, agentId: string): Promise<void> {
    if (this.rows.get(agentId)?.userId === userId) this.rows.delete(agentId);
  }

  async deleteOfAgent(agentId: string, userId: string, generation: number | undefined): Promise<void> {
    const row = this.rows.get(agentId);
    if (row?.userId !== userId) return;
    if (generation === undefined || row.agentGeneration === null || Number(row.agentGeneration) <= generation) this.rows.delete(agentId);
  }

  async pause(userId: string, agentId: string): Promise<void> {
    this.update(agentId, userId, { paused: true });
  }

  async resume(userId: string, agentId: string, nextRunAt: Date | null, evaluationError: string | null): Promise<void> {
    const error = evaluationError === null ? {} : { lastError: evaluationError, lastErrorAt: new Date() };
    this.update(agentId, userId, { paused: false, autoPaused: false, consecutiveFailures: 0, nextRunAt, ...error });
  }

  async tick<T>(work: (tx: ScheduleTickTransaction) => Promise<T>): Promise<T> {
    const rows = new Map([...this.rows].map(([id, row]) => [id, { ...row }]));
    const outbox = [...this.outbox];
    const tx: ScheduleTickTransaction = {
      lockDue: async (horizon, limit) =>
        [...rows.values()]
          .filter((r) => !r.paused && r.nextRunAt !== null && r.nextRunAt <= horizon)
          .sort((a, b) => a.nextRunAt!.getTime() - b.nextRunAt!.getTime())
          .slice(0, limit)
          .map((r) => ({ ...r })),
      advance: async (moves: ScheduleMove[]) => moves.forEach((m) => rows.has(m.agentId) && (rows.get(m.agentId)!.nextRunAt = m.next)),
      recordEvaluationErrors: async (errors: EvaluationError[]) =>
        errors.forEach((e) => rows.has(e.agentId) && Object.assign(rows.get(e.agentId)!, { lastError: e.error, lastErrorAt: new Date() })),
      recordFires: async (fires: ScheduleFireEvent[]) => void outbox.push(...fires),
    };
    const result = await work(tx);
    [this.rows, this.outbox] = [rows, outbox];
    return result;
  }

  async recordFireFailures(failures: FireFailure[], autoPauseAfter: number): Promise<void> {
    // The counting and auto-pause are the store's statement (postgres-schedule.store.int-spec.ts): only what was asked is kept.
    this.fireFailures.push(...failures.map((failure) => ({ ...failure, autoPauseAfter })));
  }

  async recordRunEnd(
    agentId: string,
    runId: string,
    verdict: 'failure' | 'success' | 'neither',
    autoPauseAfter: number,
    agentGeneration: number | null = null,
  ): Promise<void> {
    this.runEnds.push({ agentId, runId, verdict, autoPauseAfter, agentGeneration });
  }

  async recordActiveRuns(started: Array<{ agentId: string; runId: string }>): Promise<void> {
    for (const { agentId, runId } of started) if (this.rows.has(agentId)) this.rows.get(agentId)!.activeRunId = runId;
  }

  private update(agentId: string, userId: string, changes: Partial<ScheduleEntity>): void {
    const row = this.rows.get(agentId);
    if (row?.userId === userId) Object.assign(row, changes);
  }
}

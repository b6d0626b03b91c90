import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EventNames, ScheduleFireEvent } from '@aas/contracts';
import { OutboxRelay, Transaction, recordEvents, transactionOn } from '@aas/platform';
import { DataSource, EntityManager, In } from 'typeorm';
import { ScheduleEntity } from './schedule.entity';
import { EvaluationError, FireFailure, ScheduleMove, ScheduleStore, ScheduleTickTransaction, ScheduleValues } from './schedule.store';

/** The schedule store on PostgreSQL: the scheduler schema's `schedules` table, and its outbox for fires. */
@Injectable()
export class PostgresScheduleStore extends ScheduleStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRelay,
  ) {
    super();
  }

  findOwned(userId: string, agentId: string): Promise<ScheduleEntity | null> {
    return this.dataSource.manager.findOneBy(ScheduleEntity, { agentId, userId });
  }

  listOwned(userId: string): Promise<ScheduleEntity[]> {
    return this.dataSource.manager.find(ScheduleEntity, { where: { userId }, order: { createdAt: 'ASC' } });
  }

  findByAgents(agentIds: string[]): Promise<ScheduleEntity[]> {
    return this.dataSource.manager.findBy(ScheduleEntity, { agentId: In(agentIds) });
  }

  async upsert(values: ScheduleValues): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO schedules (agent_id, user_id, cron, timezone, overlap, misfire, catch_up_window_seconds, next_run_at, agent_generation, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), now())
       ON CONFLICT (agent_id) DO UPDATE SET
         cron = $3, timezone = $4, overlap = $5, misfire = $6, catch_up_window_seconds = $7, next_run_at = $8,
         user_id = $2, agent_generation = $9,
         active_run_id = CASE WHEN schedules.agent_generation IS DISTINCT FROM $9 THEN NULL ELSE schedules.active_run_id END,
         updated_at = now(), paused = false, auto_paused = false, consecutive_failures = 0,
         last_error = NULL, last_error_at = NULL`,
      [
        values.agentId,
        values.userId,
        values.cron,
        values.timezone,
        values.overlap,
        values.misfire,
        values.catchUpWindowSeconds,
        values.nextRunAt,
        values.agentGeneration,
      ],
    );
  }

  async delete(userId: string, agentId: string): Promise<void> {
    await this.dataSource.manager.delete(ScheduleEntity, { agentId, userId });
  }

  async deleteOfAgent(agentId: string, userId: string, generation: number | undefined): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM schedules WHERE agent_id = $1 AND user_id = $2
          AND ($3::bigint IS NULL OR agent_generation IS NULL OR agent_generation <= $3)`,
      [agentId, userId, generation ?? null],
    );
  }

  async pause(userId: string, agentId: string): Promise<void> {
    await this.dataSource.manager.update(ScheduleEntity, { agentId, userId }, { paused: true, updatedAt: new Date() });
  }

  async resume(userId: string, agentId: string, nextRunAt: Date | null, evaluationError: string | null): Promise<void> {
    await this.dataSource.query(
      `UPDATE schedules SET paused = false, auto_paused = false, consecutive_failures = 0, next_run_at = $3, updated_at = now(),
         last_error = COALESCE($4, last_error), last_error_at = CASE WHEN $4::text IS NULL THEN last_error_at ELSE now() END
       WHERE agent_id = $1 AND user_id = $2`,
      [agentId, userId, nextRunAt, evaluationError],
    );
  }

  tick<T>(work: (tx: ScheduleTickTransaction) => Promise<T>): Promise<T> {
    return transactionOn(this.dataSource, (manager, tx) => work(new PostgresTickTransaction(manager, tx, this.outbox)));
  }

  async recordFireFailures(failures: FireFailure[], autoPauseAfter: number): Promise<void> {
    if (failures.length === 0) return;
    await this.dataSource.query(
      `WITH f AS (
         SELECT agent_id, count(*)::int AS n, (array_agg(error))[count(*)] AS error
           FROM unnest($1::uuid[], $2::text[]) AS v(agent_id, error) GROUP BY agent_id)
       UPDATE schedules s SET
         consecutive_failures = s.consecutive_failures + f.n,
         paused = s.paused OR s.consecutive_failures + f.n >= $3,
         auto_paused = s.auto_paused OR s.consecutive_failures + f.n >= $3,
         last_error = f.error, last_error_at = now(), updated_at = now()
       FROM f WHERE s.agent_id = f.agent_id`,
      [failures.map((f) => f.agentId), failures.map((f) => f.error), autoPauseAfter],
    );
  }

  async recordRunEnd(
    agentId: string,
    runId: string,
    verdict: 'failure' | 'success' | 'neither',
    autoPauseAfter: number,
    agentGeneration: number | null = null,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE schedules SET
         consecutive_failures = CASE $3::text WHEN 'failure' THEN consecutive_failures + 1
                                              WHEN 'success' THEN 0 ELSE consecutive_failures END,
         paused = paused OR ($3::text = 'failure' AND consecutive_failures + 1 >= $4),
         auto_paused = auto_paused OR ($3::text = 'failure' AND consecutive_failures + 1 >= $4),
         active_run_id = CASE WHEN active_run_id = $2::uuid THEN NULL ELSE active_run_id END,
         last_ended_run_id = $2::uuid,
         updated_at = now()
       WHERE agent_id = $1 AND ($5::bigint IS NULL OR agent_generation IS NULL OR agent_generation = $5)
         AND last_ended_run_id IS DISTINCT FROM $2::uuid`,
      [agentId, runId, verdict, autoPauseAfter, agentGeneration],
    );
  }

  async recordActiveRuns(started: Array<{ agentId: string; runId: string }>): Promise<void> {
    if (started.length === 0) return;
    await this.dataSource.query(
      `UPDATE schedules s SET active_run_id = v.run_id
         FROM unnest($1::uuid[], $2::uuid[]) AS v(agent_id, run_id)
        WHERE s.agent_id = v.agent_id`,
      [started.map((s) => s.agentId), started.map((s) => s.runId)],
    );
  }
}

/** A tick's statements, all on the manager of its one transaction. */
class PostgresTickTransaction implements ScheduleTickTransaction {
  constructor(
    private readonly manager: EntityManager,
    private readonly tx: Transaction,
    private readonly outbox: OutboxRelay,
  ) {}

  lockDue(horizon: Date, limit: number): Promise<ScheduleEntity[]> {
    return this.manager
      .createQueryBuilder(ScheduleEntity, 's')
      .where('NOT s.paused AND s.next_run_at <= :horizon', { horizon })
      .orderBy('s.next_run_at')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
  }

  async advance(moves: ScheduleMove[]): Promise<void> {
    if (moves.length === 0) return;
    await this.manager.query(
      `UPDATE schedules s SET next_run_at = v.next_run_at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS v(agent_id, next_run_at)
        WHERE s.agent_id = v.agent_id`,
      [moves.map((m) => m.agentId), moves.map((m) => m.next?.toISOString() ?? null)],
    );
  }

  async recordEvaluationErrors(errors: EvaluationError[]): Promise<void> {
    if (errors.length === 0) return;
    await this.manager.query(
      `UPDATE schedules s SET last_error = v.error, last_error_at = now(), updated_at = now()
         FROM unnest($1::uuid[], $2::text[]) AS v(agent_id, error)
        WHERE s.agent_id = v.agent_id`,
      [errors.map((e) => e.agentId), errors.map((e) => e.error)],
    );
  }

  /** The relay publishes them as soon as the tick commits. */
  async recordFires(fires: ScheduleFireEvent[]): Promise<void> {
    if (fires.length === 0) return;
    await recordEvents(this.manager, EventNames.ScheduleFire, fires);
    this.outbox.kickAfterCommit(this.tx);
  }
}

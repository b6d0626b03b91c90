import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { OutboxRelay, Transaction, managerOf, recordEvent } from '@aas/platform';
import { DataSource } from 'typeorm';
import { RunEntity } from '../database/run.entity';
import { ChangeResult, InputRequestClosedError, PendingEnd, RunChange, RunEndLine, RunRecordStore } from './run-record.store';
import { fromStoredChange, toStoredChange } from './stored-change';

/** Run events and state changes on the runs, run_events, run_ends and outbox tables (run-record.store.ts). */
@Injectable()
export class PostgresRunRecordStore extends RunRecordStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRelay,
  ) {
    super();
  }

  find(runId: string): Promise<RunEntity | null> {
    return this.dataSource.manager.findOneBy(RunEntity, { id: runId });
  }

  async change<T extends RunChange>(
    tx: Transaction,
    runId: string,
    decide: (run: RunEntity | null) => Promise<T | undefined> | T | undefined,
    leaseUntil: Date,
  ): Promise<ChangeResult<T> | undefined> {
    const manager = managerOf(this.dataSource, tx);
    const run = await manager.findOne(RunEntity, { where: { id: runId }, lock: { mode: 'pessimistic_write' } });
    if (run && !run.isFinished && (await manager.query('SELECT 1 FROM run_ends WHERE run_id = $1', [runId])).length > 0) return { pending: true };
    const change = await decide(run);
    if (!change) return undefined;
    if (change.inputRequest) await this.writeInputRequest(tx, change);
    if (change.run.isFinished) {
      await manager.query('INSERT INTO run_ends (run_id, change, retry_at) VALUES ($1, $2::jsonb, $3)', [runId, JSON.stringify(toStoredChange(change)), leaseUntil]);
      return { aside: change };
    }
    await this.write(tx, change, {});
    return { written: change };
  }

  async pendingEnd(runId: string): Promise<PendingEnd | undefined> {
    const [row]: Array<{ change: object; created_at: Date }> = await this.dataSource.query('SELECT change, created_at FROM run_ends WHERE run_id = $1', [runId]);
    return row && { change: fromStoredChange(row.change), since: row.created_at };
  }

  async lastLine(runId: string, type: RunEndLine, field: string): Promise<{ index: number; body: Record<string, unknown> } | undefined> {
    const [row]: Array<{ event_index: string; event: Record<string, unknown> }> = await this.dataSource.query(
      `SELECT event_index, event FROM run_events WHERE run_id = $1 AND jsonb_typeof(event->$2->$3) = 'string' ORDER BY event_index DESC LIMIT 1`,
      [runId, type, field],
    );
    return row && { index: Number(row.event_index), body: row.event };
  }

  async commitEnd(tx: Transaction, runId: string, payloadExtra: object): Promise<RunChange | undefined> {
    const manager = managerOf(this.dataSource, tx);
    const run = await manager.findOne(RunEntity, { where: { id: runId }, lock: { mode: 'pessimistic_write' } });
    const [row]: Array<{ change: object }> = await manager.query(
      // Through a CTE, so that the driver answers the rows (a bare DELETE … RETURNING answers [rows, count]).
      'WITH ended AS (DELETE FROM run_ends WHERE run_id = $1 RETURNING change) SELECT change FROM ended',
      [runId],
    );
    // Finished meanwhile by other means (the agent deleted): the end aside is dropped.
    if (!run || !row || run.isFinished) return undefined;
    const change = fromStoredChange(row.change);
    await this.write(tx, change, payloadExtra);
    return change;
  }

  async postponeEnd(runId: string, until: Date): Promise<void> {
    await this.dataSource.query('UPDATE run_ends SET retry_at = $2 WHERE run_id = $1', [runId, until]);
  }

  async claimDueEnds(limit: number, until: Date): Promise<string[]> {
    const rows: Array<{ run_id: string }> = await this.dataSource.query(
      `WITH claimed AS (
         UPDATE run_ends SET retry_at = $2
          WHERE run_id IN (SELECT run_id FROM run_ends WHERE retry_at <= now() ORDER BY retry_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING run_id)
       SELECT run_id FROM claimed`,
      [limit, until],
    );
    return rows.map((row) => row.run_id);
  }

  /**
   * The input request a change asks, or closes: closing answers InputRequestClosedError (and the unit of
   * work rolls back) unless it is still pending, so of two answers at once exactly one is written.
   */
  private async writeInputRequest(tx: Transaction, change: RunChange): Promise<void> {
    const manager = managerOf(this.dataSource, tx);
    const { run, event, inputRequest } = change;
    if (inputRequest && 'asked' in inputRequest) {
      const r = inputRequest.asked;
      await manager.query(
        `INSERT INTO input_requests (id, run_id, user_id, agent_id, input_id, prompt, schema, choices, notify, on_timeout, state,
                                     time_left_ms, status, created_at, pause_at, timeout_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::jsonb, $10::jsonb, $11, $12, 'pending', $13, $14, $15)`,
        [r.id, run.id, run.userId, run.agentId, r.inputId, r.prompt, JSON.stringify(r.schema), r.choices && JSON.stringify(r.choices),
          JSON.stringify(r.notify), JSON.stringify(r.onTimeout), r.state, r.timeLeftMs, event.at, r.pauseAt, r.timeoutAt],
      );
      return;
    }
    if (!inputRequest) return;
    if ('paused' in inputRequest) {
      const [, paused]: [unknown, number] = await manager.query(
        `UPDATE input_requests SET paused = true WHERE id = $1 AND run_id = $2 AND status = 'pending' AND NOT paused`,
        [inputRequest.paused, run.id],
      );
      if (paused !== 1) throw new InputRequestClosedError(inputRequest.paused);
      return;
    }
    const c = inputRequest.closed;
    const [, closed]: [unknown, number] = await manager.query(
      `UPDATE input_requests SET status = $3, answer = $4, answered_at = $5, answered_by = $6::jsonb
        WHERE id = $1 AND run_id = $2 AND status = 'pending'`,
      [c.id, run.id, c.status, c.answer, event.at, JSON.stringify(c.answeredBy)],
    );
    if (closed !== 1) throw new InputRequestClosedError(c.id);
  }

  /** The event, the run's columns and the outbox events; the relay publishes them once `tx` commits. */
  private async write(tx: Transaction, change: RunChange, payloadExtra: object): Promise<void> {
    const manager = managerOf(this.dataSource, tx);
    await manager.query('INSERT INTO run_events (run_id, event_index, recorded_at, event) VALUES ($1, $2, $3, $4::jsonb)', [
      change.run.id,
      change.event.index,
      change.event.at,
      JSON.stringify(change.event.body),
    ]);
    // An UPDATE of the row read under lock in this transaction: save() would read it again first.
    const { id, ...columns } = change.run;
    await manager.update(RunEntity, { id }, columns);
    for (const write of change.outbox) await recordEvent(manager, write.event, { ...write.payload, ...payloadExtra });
    // A run that ends (a cancel, a failure, its agent deleted) voids its open question: answering it is a 409.
    if (change.run.isFinished) await manager.query(`UPDATE input_requests SET status = 'void' WHERE run_id = $1 AND status = 'pending'`, [change.run.id]);
    if (change.outbox.length > 0) this.outbox.kickAfterCommit(tx);
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EventNames, RunQueuedEvent } from '@aas/contracts';
import { OutboxRelay, managerOf, recordEvents, Transaction } from '@aas/platform';
import { DataSource } from 'typeorm';
import { AdmissionLimits } from './admission-limits';
import { AdmissionLockMode, AdmissionStore, PickedRun } from './admission.store';

const WAITING = 'admitted_at IS NULL AND NOT is_finished';
// A run suspended on an input request holds no admission slot (docs/input-requests.md).
const EXECUTING = 'admitted_at IS NOT NULL AND NOT is_finished AND NOT awaiting_input';

/**
 * Counts the user's executing runs (admitted, not finished) per agent and admits its oldest waiting
 * runs that fit under both limits: each agent's oldest first, at most the agent's room each, then the
 * oldest of those up to the user's room. The user's agents that have waiting runs are found by
 * skipping through runs_waiting_idx, and each gives at most its room, so the cost follows the
 * number of agents and the limits, not the length of the backlog. Rows another transaction holds
 * (a cancel, a deletion) are skipped. Answers the admitted runs, with the user's executing runs before.
 */
const ADMIT = `
  WITH RECURSIVE
    executing AS (
      SELECT agent_id, count(*)::int AS runs FROM runs WHERE user_id = $1 AND ${EXECUTING} GROUP BY agent_id
    ),
    total AS (
      SELECT coalesce(sum(runs), 0)::int AS runs FROM executing
    ),
    user_room AS (
      SELECT CASE WHEN $2::int IS NULL THEN NULL ELSE greatest($2::int - runs, 0) END AS runs FROM total
    ),
    waiting_agents AS (
      (SELECT agent_id FROM runs WHERE user_id = $1 AND ${WAITING} ORDER BY agent_id LIMIT 1)
      UNION ALL
      SELECT (SELECT r.agent_id FROM runs r WHERE r.user_id = $1 AND r.${WAITING} AND r.agent_id > w.agent_id ORDER BY r.agent_id LIMIT 1)
        FROM waiting_agents w WHERE w.agent_id IS NOT NULL
    ),
    picked AS (
      SELECT c.id FROM waiting_agents w
        LEFT JOIN executing e ON e.agent_id = w.agent_id
        CROSS JOIN user_room u
        CROSS JOIN LATERAL (
          SELECT r.id, r.started_at, r.run_number FROM runs r
           WHERE r.user_id = $1 AND r.agent_id = w.agent_id AND r.${WAITING}
           ORDER BY r.started_at, r.run_number
           LIMIT least(u.runs, CASE WHEN $3::int IS NULL THEN NULL ELSE greatest($3::int - coalesce(e.runs, 0), 0) END)
           FOR UPDATE SKIP LOCKED
        ) c
       WHERE w.agent_id IS NOT NULL
       ORDER BY c.started_at, c.run_number
       LIMIT (SELECT runs FROM user_room)
    )
  UPDATE runs r SET admitted_at = clock_timestamp() FROM picked p, total t WHERE r.id = p.id
  RETURNING r.id, r.started_at, r.run_number, t.runs AS executing`;

/** Each user's waiting runs, counted up to $2: a bounded scan of runs_waiting_idx per user, never of the table. */
const COUNT_WAITING = `
  SELECT u.user_id, (SELECT count(*)::int FROM (SELECT 1 FROM runs r WHERE r.user_id = u.user_id AND r.${WAITING} LIMIT $2) w) AS waiting
    FROM unnest($1::uuid[]) AS u(user_id)`;

/** The users with waiting runs and room under the per-user limit (per-agent room is left to ADMIT). */
const USERS_TO_ADMIT = `
  WITH RECURSIVE waiting_users AS (
    (SELECT user_id FROM runs WHERE ${WAITING} ORDER BY user_id LIMIT 1)
    UNION ALL
    SELECT (SELECT r.user_id FROM runs r WHERE r.${WAITING} AND r.user_id > w.user_id ORDER BY r.user_id LIMIT 1)
      FROM waiting_users w WHERE w.user_id IS NOT NULL
  )
  SELECT w.user_id FROM waiting_users w
   WHERE w.user_id IS NOT NULL
     AND ($1::int IS NULL OR (SELECT count(*) FROM runs r WHERE r.user_id = w.user_id AND r.${EXECUTING}) < $1::int)`;

/** The admission statements on the runs table (admission.store.ts). */
@Injectable()
export class PostgresAdmissionStore extends AdmissionStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRelay,
  ) {
    super();
  }

  async lockUser(tx: Transaction, userId: string, mode: AdmissionLockMode): Promise<boolean> {
    const manager = managerOf(this.dataSource, tx);
    if (mode === 'wait') {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [admissionLockKey(userId)]);
      return true;
    }
    const [{ locked }]: Array<{ locked: boolean }> = await manager.query('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked', [
      admissionLockKey(userId),
    ]);
    return locked;
  }

  async admitWaiting(tx: Transaction, userId: string, limits: AdmissionLimits): Promise<PickedRun[]> {
    const [rows]: [Array<{ id: string; started_at: Date; run_number: number; executing: number }>, number] = await managerOf(this.dataSource, tx).query(ADMIT, [
      userId,
      limits.perUser,
      limits.perAgent,
    ]);
    return rows.map((row) => ({ runId: row.id, startedAt: row.started_at, runNumber: row.run_number, executingBefore: row.executing }));
  }

  async countWaiting(tx: Transaction, userIds: string[], max: number): Promise<Map<string, number>> {
    if (userIds.length === 0) return new Map();
    const rows: Array<{ user_id: string; waiting: number }> = await managerOf(this.dataSource, tx).query(COUNT_WAITING, [userIds, max]);
    return new Map(rows.map((row) => [row.user_id, row.waiting]));
  }

  async recordQueued(tx: Transaction, events: RunQueuedEvent[]): Promise<void> {
    if (events.length === 0) return;
    await recordEvents(managerOf(this.dataSource, tx), EventNames.RunQueued, events);
    this.outbox.kickAfterCommit(tx);
  }

  async usersToAdmit(limits: AdmissionLimits): Promise<string[]> {
    const rows: Array<{ user_id: string }> = await this.dataSource.query(USERS_TO_ADMIT, [limits.perUser]);
    return rows.map((row) => row.user_id);
  }
}

/** Advisory locks are per database: the key names runs-service's use of it. */
function admissionLockKey(userId: string): string {
  return `runs:admission:${userId}`;
}

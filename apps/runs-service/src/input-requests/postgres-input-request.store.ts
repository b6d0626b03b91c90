import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { InputRequestStatus } from '@aas/contracts';
import { DataSource } from 'typeorm';
import { AgentOfRuns, InputRequestRow, InputRequestStore, RunOwner } from './input-request.store';

const COLUMNS = `q.id, q.run_id, q.user_id, q.agent_id, r.agent_generation, q.input_id, q.prompt, q.schema, q.choices, q.notify,
  q.on_timeout, q.state, q.time_left_ms, q.status, q.created_at, q.timeout_at, q.answer, q.answered_at, q.answered_by`;

interface Row {
  id: string;
  run_id: string;
  user_id: string;
  agent_id: string;
  agent_generation: string | null;
  input_id: string;
  prompt: string;
  schema: Record<string, unknown>;
  choices: string[] | null;
  notify: string[];
  on_timeout: InputRequestRow['onTimeout'];
  state: string;
  time_left_ms: string;
  status: InputRequestStatus;
  created_at: Date;
  timeout_at: Date;
  answer: string | null;
  answered_at: Date | null;
  answered_by: InputRequestRow['answeredBy'];
}

/** input_requests (migrations/1764930000000-input-requests.ts), joined with their runs. */
@Injectable()
export class PostgresInputRequestStore extends InputRequestStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async pendingCount(userId: string, max: number): Promise<number> {
    const [{ n }]: Array<{ n: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM input_requests WHERE user_id = $1 AND status = 'pending' LIMIT $2) p`,
      [userId, max],
    );
    return n;
  }

  async find(requestId: string): Promise<InputRequestRow | undefined> {
    const [row]: Row[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM input_requests q JOIN runs r ON r.id = q.run_id WHERE q.id = $1`, [requestId]);
    return row && toRow(row);
  }

  async runOwner(runId: string): Promise<RunOwner | undefined> {
    const [row]: Array<{ user_id: string; agent_id: string; agent_generation: string | null }> = await this.dataSource.query(
      'SELECT user_id, agent_id, agent_generation FROM runs WHERE id = $1',
      [runId],
    );
    return row && { userId: row.user_id, agentId: row.agent_id, agentGeneration: row.agent_generation === null ? null : Number(row.agent_generation) };
  }

  async listForRun(runId: string, limit: number): Promise<InputRequestRow[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM input_requests q JOIN runs r ON r.id = q.run_id WHERE q.run_id = $1 ORDER BY q.created_at, q.id LIMIT $2`,
      [runId, limit],
    );
    return rows.map(toRow);
  }

  async listForUser(userId: string, agents: AgentOfRuns[], status: InputRequestStatus | undefined, limit: number): Promise<InputRequestRow[]> {
    if (agents.length === 0) return [];
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM input_requests q
         JOIN runs r ON r.id = q.run_id
         JOIN unnest($2::uuid[], $3::bigint[]) AS a(agent_id, generation) ON a.agent_id = q.agent_id
        WHERE q.user_id = $1 AND ($4::text IS NULL OR q.status = $4)
          AND (r.agent_generation IS NULL OR r.agent_generation = a.generation)
        ORDER BY q.created_at, q.id LIMIT $5`,
      [userId, agents.map((a) => a.agentId), agents.map((a) => a.generation), status ?? null, limit],
    );
    return rows.map(toRow);
  }

  async claimContinuation(runId: string): Promise<InputRequestRow | undefined> {
    const [row]: Row[] = await this.dataSource.query(
      `WITH claimed AS (
         UPDATE input_requests SET continued_at = clock_timestamp()
          WHERE id = (SELECT id FROM input_requests
                       WHERE run_id = $1 AND status IN ('answered', 'timed_out') AND continued_at IS NULL
                       ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING *)
       SELECT ${COLUMNS} FROM claimed q JOIN runs r ON r.id = q.run_id`,
      [runId],
    );
    return row && toRow(row);
  }

  async duePauses(limit: number): Promise<Array<{ id: string; runId: string }>> {
    const rows: Array<{ id: string; run_id: string }> = await this.dataSource.query(
      `SELECT id, run_id FROM input_requests WHERE status = 'pending' AND NOT paused AND pause_at <= now() ORDER BY pause_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({ id: row.id, runId: row.run_id }));
  }

  async dueTimeouts(limit: number): Promise<InputRequestRow[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM input_requests q JOIN runs r ON r.id = q.run_id
        WHERE q.status = 'pending' AND q.timeout_at <= now() ORDER BY q.timeout_at LIMIT $1`,
      [limit],
    );
    return rows.map(toRow);
  }
}

function toRow(row: Row): InputRequestRow {
  return {
    id: row.id,
    runId: row.run_id,
    userId: row.user_id,
    agentId: row.agent_id,
    agentGeneration: row.agent_generation === null ? null : Number(row.agent_generation),
    inputId: row.input_id,
    prompt: row.prompt,
    schema: row.schema,
    choices: row.choices,
    notify: row.notify,
    onTimeout: row.on_timeout,
    state: row.state,
    timeLeftMs: Number(row.time_left_ms),
    status: row.status,
    createdAt: row.created_at,
    timeoutAt: row.timeout_at,
    answer: row.answer,
    answeredAt: row.answered_at,
    answeredBy: row.answered_by,
  };
}

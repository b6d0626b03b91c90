import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AgentOfUser, AgentStartContext, LiveAgent, OwnedAgent, RunRetentionsResponse } from '@aas/contracts';
import { DataSource } from 'typeorm';
import { AgentContextRow, AgentRunsStore, BuildRunSnapshot, RunSnapshot } from './agent-runs.store';

/** The agent-runs store on PostgreSQL: raw SQL, each summary update one conditional statement. */
@Injectable()
export class PostgresAgentRunsStore extends AgentRunsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async owned(agentId: string, userId: string): Promise<OwnedAgent | undefined> {
    const [row]: OwnedAgent[] = await this.dataSource.query(
      `SELECT id AS agent_id, seq::float8 AS generation, deployment_state FROM agents WHERE id = $1 AND user_id = $2`,
      [agentId, userId],
    );
    return row;
  }

  async context(agentId: string, userId: string): Promise<AgentContextRow | undefined> {
    const [row]: AgentContextRow[] = await this.dataSource.query(
      `SELECT a.id AS agent_id, a.seq AS generation, u.email AS user_email, a.deployment_state, i.content, i.plan_steps, i.version_id
         FROM agents a JOIN users u ON u.id = a.user_id LEFT JOIN instructions i ON i.agent_id = a.id
        WHERE a.id = $1 AND a.user_id = $2`,
      [agentId, userId],
    );
    return row;
  }

  startContexts(pairs: AgentOfUser[]): Promise<AgentStartContext[]> {
    return this.dataSource.query(
      `SELECT a.id AS agent_id, a.seq::float8 AS generation, a.user_id, u.email AS user_email, a.deployment_state
         FROM agents a JOIN users u ON u.id = a.user_id
        WHERE (a.id, a.user_id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`,
      [pairs.map((a) => a.agent_id), pairs.map((a) => a.user_id)],
    );
  }

  liveAgents(userId: string, only: { workspaceId?: string; agentId?: string }): Promise<LiveAgent[]> {
    return this.dataSource.query(
      `SELECT id AS agent_id, seq::float8 AS generation FROM agents
        WHERE user_id = $1 AND ($2::uuid IS NULL OR workspace_id = $2) AND ($3::uuid IS NULL OR id = $3)
        ORDER BY seq`,
      [userId, only.workspaceId ?? null, only.agentId ?? null],
    );
  }

  runRetentions(): Promise<RunRetentionsResponse['retentions']> {
    return this.dataSource.query(
      `SELECT w.run_retention_days AS days, array_agg(a.id ORDER BY a.id) AS agent_ids
         FROM workspaces w JOIN agents a ON a.workspace_id = w.id
        WHERE w.run_retention_days IS NOT NULL
        GROUP BY w.run_retention_days ORDER BY w.run_retention_days`,
    );
  }

  async recordRun(agentId: string, generation: number | null, run: RunSnapshot): Promise<void> {
    await this.dataSource.query(
      `UPDATE agents SET
         latest_run_id = $2, latest_run_status = $3, latest_run_is_finished = $4,
         latest_run_has_pending_input = $5, has_runs = true, last_activity_at = $6,
         last_chat_message = COALESCE($7, last_chat_message), policy_type = COALESCE($8, policy_type),
         latest_run_number = $9, latest_run_seq = $10
       WHERE id = $1 AND (latest_run_number, latest_run_seq) < ($9, $10) AND ($11::bigint IS NULL OR seq = $11)`,
      [agentId, run.runId, run.status, run.isFinished, run.hasPendingInput, run.at, run.lastChatMessage, run.policyType, run.runNumber, run.seq, generation],
    );
  }

  async recordBuildRun(agentId: string, generation: number | null, build: BuildRunSnapshot): Promise<void> {
    await this.dataSource.query(
      `UPDATE agents SET
         latest_build_run_id = $2, active_build_run_id = CASE WHEN $3 THEN NULL ELSE $2 END,
         has_instruction_build = true, latest_build_run_number = $4, latest_build_run_seq = $5,
         latest_instruction_build_run_id = CASE WHEN $6 THEN $2 ELSE latest_instruction_build_run_id END
       WHERE id = $1 AND (latest_build_run_number, latest_build_run_seq) < ($4, $5) AND ($7::bigint IS NULL OR seq = $7)`,
      [agentId, build.runId, build.isFinished, build.runNumber, build.seq, build.wroteInstructions, generation],
    );
  }

  async recordDeployment(agentId: string, generation: number | null, deployedAt: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE agents SET deployment_state = 'deployed', deployed_at = GREATEST(deployed_at, $2::timestamptz)
       WHERE id = $1 AND ($3::bigint IS NULL OR seq = $3)`,
      [agentId, deployedAt, generation],
    );
  }

  async recordAgentName(agentId: string, generation: number | null, name: string, explanation: string | null): Promise<void> {
    await this.dataSource.query(
      `UPDATE agents SET name = $2, name_explanation = $3 WHERE id = $1 AND ($4::bigint IS NULL OR seq = $4)`,
      [agentId, name, explanation, generation],
    );
  }
}

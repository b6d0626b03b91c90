import { Processor, WorkerHost } from '@nestjs/bullmq';
import { InjectDataSource } from '@nestjs/typeorm';
import { QueueNames, RunProgressEvent } from '@aas/contracts';
import { InJobRequestContext, WORKER_LOCK } from '@aas/platform';
import { Job } from 'bullmq';
import { DataSource } from 'typeorm';

/**
 * Keeps the agent fields that summarise its runs (latest_run_*, has_runs,
 * last_chat_message, deployment, build runs) in step with run progress.
 * Each update applies only if its snapshot is newer than the one the agent
 * reflects, so events processed twice or out of order change nothing.
 */
@Processor(QueueNames.AgentsEvents, { concurrency: 16, ...WORKER_LOCK })
export class RunProgressConsumer extends WorkerHost {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job<RunProgressEvent>): Promise<void> {
    const e = job.data;
    // $G: the run's agent generation; a run of a deleted agent changes nothing of a new agent with its id.
    const generation = e.agent_generation ?? null;
    await this.dataSource.query(
      `UPDATE agents SET
         latest_run_id = $2, latest_run_status = $3, latest_run_is_finished = $4,
         latest_run_has_pending_input = $5, has_runs = true, last_activity_at = $6,
         last_chat_message = COALESCE($7, last_chat_message), policy_type = COALESCE($8, policy_type),
         latest_run_number = $9, latest_run_seq = $10
       WHERE id = $1 AND (latest_run_number, latest_run_seq) < ($9, $10) AND ($11::bigint IS NULL OR seq = $11)`,
      [e.agent_id, e.run_id, e.status, e.is_finished, e.has_pending_input, e.at, e.last_chat_message ?? null, e.policy_type, e.run_number, e.seq, generation],
    );
    if (e.run_mode === 'build') {
      await this.dataSource.query(
        `UPDATE agents SET
           latest_build_run_id = $2, active_build_run_id = CASE WHEN $3 THEN NULL ELSE $2 END,
           has_instruction_build = true, latest_build_run_number = $4, latest_build_run_seq = $5,
           latest_instruction_build_run_id = CASE WHEN $6 THEN $2 ELSE latest_instruction_build_run_id END
         WHERE id = $1 AND (latest_build_run_number, latest_build_run_seq) < ($4, $5) AND ($7::bigint IS NULL OR seq = $7)`,
        [e.agent_id, e.run_id, e.is_finished, e.run_number, e.seq, e.wrote_instructions === true, generation],
      );
    }
    if (e.deployed_at) {
      await this.dataSource.query(
        `UPDATE agents SET deployment_state = 'deployed', deployed_at = GREATEST(deployed_at, $2::timestamptz)
         WHERE id = $1 AND ($3::bigint IS NULL OR seq = $3)`,
        [e.agent_id, e.deployed_at, generation],
      );
    }
  }
}

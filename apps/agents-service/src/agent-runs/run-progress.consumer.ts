import { Processor, WorkerHost } from '@nestjs/bullmq';
import { QueueNames, parseJob } from '@aas/contracts';
import { InJobRequestContext, WORKER_LOCK } from '@aas/platform';
import { Job } from 'bullmq';
import { AgentRunsStore } from './agent-runs.store';

/**
 * Keeps the agent fields that summarise its runs (latest_run_*, has_runs,
 * last_chat_message, deployment, build runs) in step with run progress.
 * Each update applies only if its snapshot is newer than the one the agent
 * reflects, so events processed twice or out of order change nothing.
 */
@Processor(QueueNames.AgentsEvents, { concurrency: 16, ...WORKER_LOCK })
export class RunProgressConsumer extends WorkerHost {
  constructor(private readonly store: AgentRunsStore) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job): Promise<void> {
    const e = parseJob(QueueNames.AgentsEvents, job).data;
    // A run of a deleted agent changes nothing of a new agent with its id; an event of an earlier version has no generation.
    const generation = e.agent_generation ?? null;
    await this.store.recordRun(e.agent_id, generation, {
      runId: e.run_id,
      runNumber: e.run_number,
      seq: e.seq,
      status: e.status,
      isFinished: e.is_finished,
      hasPendingInput: e.has_pending_input,
      at: e.at,
      lastChatMessage: e.last_chat_message ?? null,
      policyType: e.policy_type,
    });
    if (e.run_mode === 'build') {
      await this.store.recordBuildRun(e.agent_id, generation, {
        runId: e.run_id,
        runNumber: e.run_number,
        seq: e.seq,
        isFinished: e.is_finished,
        wroteInstructions: e.wrote_instructions === true,
      });
    }
    if (e.deployed_at) await this.store.recordDeployment(e.agent_id, generation, e.deployed_at);
  }
}

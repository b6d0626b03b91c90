import { Processor, WorkerHost } from '@nestjs/bullmq';
import { EventNames, QueueNames, RunAgentNameEvent, RunInstructionsEvent, RunProgressEvent, parseJob } from '@aas/contracts';
import { InJobRequestContext, WORKER_LOCK } from '@aas/platform';
import { DomainError } from '@aas/problem-details';
import { Job, UnrecoverableError } from 'bullmq';
import { InstructionsService } from '../instructions/instructions.service';
import { AgentRunsStore } from './agent-runs.store';

/**
 * The events runs-service sends agents-service, its one channel for what a run changes of its agent.
 * run.progress keeps the agent fields that summarise its runs (latest_run_*, has_runs,
 * last_chat_message, deployment, build runs) in step: each update applies only if its snapshot is
 * newer than the one the agent reflects, so events processed twice or out of order change nothing.
 * run.instructions makes a run's instructions the agent's current ones; run.agent_name (a build run's)
 * its name.
 */
@Processor(QueueNames.AgentsEvents, { concurrency: 16, ...WORKER_LOCK })
export class RunProgressConsumer extends WorkerHost {
  constructor(
    private readonly store: AgentRunsStore,
    private readonly instructions: InstructionsService,
  ) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job): Promise<void> {
    const parsed = parseJob(QueueNames.AgentsEvents, job);
    switch (parsed.name) {
      case EventNames.RunProgress:
        return this.progress(parsed.data);
      case EventNames.RunInstructions:
        return this.writeInstructions(parsed.data);
      case EventNames.RunAgentName:
        return this.writeAgentName(parsed.data);
    }
  }

  /**
   * As a PUT by the run would (InstructionsService.put), at most once per content and run. A refusal
   * (the agent is gone or another generation, the instructions are over a limit) will not change on a
   * retry: the job fails at once, and stays in the queue's failed jobs with the reason.
   */
  private async writeInstructions(e: RunInstructionsEvent): Promise<void> {
    try {
      await this.instructions.put(e.user_id, e.agent_id, {
        content: e.content,
        planSteps: e.plan_steps,
        sourceType: 'builder',
        sourceId: e.run_id,
        agentGeneration: e.agent_generation ?? undefined,
        unlessCurrent: true,
      });
    } catch (error) {
      if (error instanceof DomainError) throw new UnrecoverableError(`instructions of run ${e.run_id} refused: ${error.message}`);
      throw error;
    }
  }

  /** Of the run's generation of the agent only: a recreated agent keeps its own name. Setting it twice changes nothing. */
  private async writeAgentName(e: RunAgentNameEvent): Promise<void> {
    await this.store.recordAgentName(e.agent_id, e.agent_generation, e.name, e.explanation ?? null);
  }

  private async progress(e: RunProgressEvent): Promise<void> {
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

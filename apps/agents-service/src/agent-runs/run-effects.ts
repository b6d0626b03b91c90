import { Injectable } from '@nestjs/common';
import { RunAgentNameEvent, RunInstructionsEvent, RunProgressEvent } from '@aas/contracts';
import { InstructionsService } from '../instructions/instructions.service';
import { AgentRunsStore } from './agent-runs.store';

/**
 * What a run changes of its agent, whichever way it arrives: by event (RunProgressConsumer) or, for a
 * run's end, by runs-service's request before the end becomes visible (RunEndsHandlers). Each change is
 * idempotent: a progress snapshot applies only if newer than the agent's, instructions only if they are
 * not already the current ones from this run, so the same change arriving both ways changes nothing.
 */
@Injectable()
export class RunEffects {
  constructor(
    private readonly store: AgentRunsStore,
    private readonly instructions: InstructionsService,
  ) {}

  /** As a PUT by the run would (InstructionsService.put); a refusal (agent gone, over a limit) is its DomainError. */
  async writeInstructions(e: RunInstructionsEvent): Promise<void> {
    await this.instructions.put(e.user_id, e.agent_id, {
      content: e.content,
      planSteps: e.plan_steps,
      sourceType: 'builder',
      sourceId: e.run_id,
      agentGeneration: e.agent_generation ?? undefined,
      unlessCurrent: true,
    });
  }

  /** A build run's name for its agent, of the run's generation of the agent only; setting it twice changes nothing. */
  async writeAgentName(e: RunAgentNameEvent): Promise<void> {
    await this.store.recordAgentName(e.agent_id, e.agent_generation, e.name, e.explanation ?? null);
  }

  /** The agent fields that summarise its runs (latest_run_*, has_runs, last_chat_message, build runs) and its deployment. */
  async progress(e: RunProgressEvent): Promise<void> {
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

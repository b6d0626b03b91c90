import { Processor, WorkerHost } from '@nestjs/bullmq';
import { EventNames, QueueNames, RunAgentNameEvent, RunInstructionsEvent, parseJob } from '@aas/contracts';
import { InJobRequestContext, WORKER_LOCK } from '@aas/platform';
import { DomainError } from '@aas/problem-details';
import { Job, UnrecoverableError } from 'bullmq';
import { RunEffects } from './run-effects';

/**
 * The events runs-service sends agents-service, its one channel for what a run changes of its agent
 * while it runs (a run's end is also applied by request before it is visible: RunEndsHandlers).
 * run.progress keeps the agent fields that summarise its runs (latest_run_*, has_runs,
 * last_chat_message, deployment, build runs) in step: each update applies only if its snapshot is
 * newer than the one the agent reflects, so events processed twice or out of order change nothing.
 * run.instructions makes a run's instructions the agent's current ones; run.agent_name (a build run's)
 * its name.
 */
@Processor(QueueNames.AgentsEvents, { concurrency: 16, ...WORKER_LOCK })
export class RunProgressConsumer extends WorkerHost {
  constructor(private readonly effects: RunEffects) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job): Promise<void> {
    const parsed = parseJob(QueueNames.AgentsEvents, job);
    switch (parsed.name) {
      case EventNames.RunProgress:
        return this.effects.progress(parsed.data);
      case EventNames.RunInstructions:
        return this.writeInstructions(parsed.data);
      case EventNames.RunAgentName:
        return this.writeAgentName(parsed.data);
    }
  }

  /**
   * At most once per content and run. A refusal (the agent is gone or another generation, the
   * instructions are over a limit) will not change on a retry: the job fails at once, and stays in the
   * queue's failed jobs with the reason.
   */
  private async writeInstructions(e: RunInstructionsEvent): Promise<void> {
    try {
      await this.effects.writeInstructions(e);
    } catch (error) {
      if (error instanceof DomainError) throw new UnrecoverableError(`instructions of run ${e.run_id} refused: ${error.message}`);
      throw error;
    }
  }

  /** Of the run's generation of the agent only: a recreated agent keeps its own name. Setting it twice changes nothing. */
  private async writeAgentName(e: RunAgentNameEvent): Promise<void> {
    await this.effects.writeAgentName(e);
  }
}

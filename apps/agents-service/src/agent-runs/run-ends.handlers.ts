import { Controller, Logger } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AgentsPatterns, HandlesRequest, RecordRunEndsMessage, RecordRunEndsResponse } from '@aas/contracts';
import { DomainError } from '@aas/problem-details';
import { RunEffects } from './run-effects';

/**
 * runs-service asks here, before a run's end becomes visible, that its effects on the agent be
 * committed: the run's last instructions and name first (a build run's instructions and name are current
 * when it reads completed), then the final progress snapshot (latest_run_*, deployment). Answered once all are.
 */
@Controller()
export class RunEndsHandlers {
  private readonly logger = new Logger(RunEndsHandlers.name);

  constructor(private readonly effects: RunEffects) {}

  @HandlesRequest(AgentsPatterns.RecordRunEnds)
  async recordRunEnds(@Payload() message: RecordRunEndsMessage): Promise<RecordRunEndsResponse> {
    for (const end of message.ends) {
      if (end.instructions) await this.refusalLogged(end.instructions.run_id, this.effects.writeInstructions(end.instructions));
      if (end.agent_name) await this.effects.writeAgentName(end.agent_name);
      await this.effects.progress(end.progress);
    }
    return { applied: message.ends.length };
  }

  /** A refusal (the agent gone or recreated, instructions over the quota) will not change on a retry: the end goes on without them. */
  private async refusalLogged(runId: string, write: Promise<void>): Promise<void> {
    try {
      await write;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.logger.warn({ run_id: runId }, `instructions of run ${runId} refused: ${error.message}`);
    }
  }
}

import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CancelRunMessage,
  ListRunsMessage,
  RunEventsMessage,
  RunEventsResponse,
  RunListResponse,
  RunRefMessage,
  RunResponse,
  RunsPatterns,
  StartRunMessage,
  StartScheduledRunMessage,
  SuccessResponse,
} from '@aas/contracts';
import { RunsService } from './runs.service';

@Controller()
export class RunsHandlers {
  constructor(private readonly runs: RunsService) {}

  @MessagePattern(RunsPatterns.StartRun)
  async start(@Payload() message: StartRunMessage): Promise<RunResponse> {
    return { run: await this.runs.start(message) };
  }

  /** A schedule's fire: one run per fire time, however often the fire is retried. */
  @MessagePattern(RunsPatterns.StartScheduledRun)
  async startScheduled(@Payload() message: StartScheduledRunMessage): Promise<RunResponse> {
    const run = await this.runs.start(
      {
        user_id: message.user_id,
        agent_id: message.agent_id,
        idempotency_key: `schedule:${message.agent_id}:${Date.parse(message.fire_time)}`,
      },
      { runKind: 'schedule', scheduleAgentId: message.agent_id },
    );
    return { run };
  }

  @MessagePattern(RunsPatterns.ListRuns)
  list(@Payload() message: ListRunsMessage): Promise<RunListResponse> {
    return this.runs.list(message);
  }

  @MessagePattern(RunsPatterns.GetRun)
  async get(@Payload() message: RunRefMessage): Promise<RunResponse> {
    return { run: await this.runs.get(message.user_id, message.agent_id, message.run_id) };
  }

  @MessagePattern(RunsPatterns.ListRunEvents)
  events(@Payload() message: RunEventsMessage): Promise<RunEventsResponse> {
    return this.runs.events(message);
  }

  @MessagePattern(RunsPatterns.CancelRun)
  cancel(@Payload() message: CancelRunMessage): Promise<SuccessResponse> {
    return this.runs.cancel(message.user_id, message.agent_id, message.run_id, message.reason ?? null);
  }

  @MessagePattern(RunsPatterns.DeleteRun)
  async delete(@Payload() message: RunRefMessage): Promise<{ deleted: true }> {
    await this.runs.delete(message.user_id, message.agent_id, message.run_id);
    return { deleted: true };
  }
}

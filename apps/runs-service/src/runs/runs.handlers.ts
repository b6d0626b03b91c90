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

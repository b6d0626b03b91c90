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
  StartScheduledRunsMessage,
  StartScheduledRunsResponse,
  SuccessResponse,
} from '@aas/contracts';
import { toProblem } from '@aas/problem-details';
import { RunsService } from './runs.service';
import { ScheduledRunsService } from './scheduled-runs.service';

@Controller()
export class RunsHandlers {
  constructor(
    private readonly runs: RunsService,
    private readonly scheduledRuns: ScheduledRunsService,
  ) {}

  @MessagePattern(RunsPatterns.StartRun)
  async start(@Payload() message: StartRunMessage): Promise<RunResponse> {
    return { run: await this.runs.start(message) };
  }

  /** A schedule's fire: one run per fire time, however often the fire is retried. Kept for schedulers that predate batches. */
  @MessagePattern(RunsPatterns.StartScheduledRun)
  async startScheduled(@Payload() message: StartScheduledRunMessage): Promise<RunResponse> {
    const [start] = await this.scheduledRuns.start([message]);
    if ('refusal' in start) throw start.refusal;
    return { run: await this.runs.get(message.user_id, message.agent_id, start.runId) };
  }

  /** The fires of a schedule batch: a refused fire is reported in its outcome and does not fail the others. */
  @MessagePattern(RunsPatterns.StartScheduledRuns)
  async startScheduledBatch(@Payload() message: StartScheduledRunsMessage): Promise<StartScheduledRunsResponse> {
    const starts = await this.scheduledRuns.start(message.fires);
    return {
      outcomes: starts.map(({ fire, ...start }) =>
        'refusal' in start
          ? { agent_id: fire.agent_id, fire_time: fire.fire_time, refused: toProblem(start.refusal) }
          : { agent_id: fire.agent_id, fire_time: fire.fire_time, run_id: start.runId },
      ),
    };
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

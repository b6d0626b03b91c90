import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CancelRunMessage,
  HandlesRequest,
  ListRunsMessage,
  RunEventsMessage,
  RunEventsResponse,
  RunListResponse,
  ReplayRunMessage,
  RunRefMessage,
  RunResponse,
  RunsPatterns,
  RunStreamHeadsMessage,
  RunStreamHeadsResponse,
  StartRunMessage,
  StartScheduledRunsMessage,
  StartScheduledRunsResponse,
  StartTriggeredRunsMessage,
  StartTriggeredRunsResponse,
  SuccessResponse,
} from '@aas/contracts';
import { RunStarts } from './run-starts.service';
import { RunsService } from './runs.service';

@Controller()
export class RunsHandlers {
  constructor(
    private readonly runs: RunsService,
    private readonly starts: RunStarts,
  ) {}

  @HandlesRequest(RunsPatterns.StartRun)
  async start(@Payload() message: StartRunMessage): Promise<RunResponse> {
    return { run: await this.starts.start(message) };
  }

  @HandlesRequest(RunsPatterns.ReplayRun)
  async replay(@Payload() message: ReplayRunMessage): Promise<RunResponse> {
    return { run: await this.starts.replay(message) };
  }

  /** The fires of a schedule batch (and backfills): a refused fire is reported in its outcome and does not fail the others. */
  @HandlesRequest(RunsPatterns.StartScheduledRuns)
  startScheduledBatch(@Payload() message: StartScheduledRunsMessage): Promise<StartScheduledRunsResponse> {
    return this.starts.startScheduled(message);
  }

  /** Runs started by triggers: each start keyed by its trigger and delivery, so a repeat answers the first run. */
  @HandlesRequest(RunsPatterns.StartTriggeredRuns)
  startTriggeredBatch(@Payload() message: StartTriggeredRunsMessage): Promise<StartTriggeredRunsResponse> {
    return this.starts.startTriggered(message);
  }

  @HandlesRequest(RunsPatterns.ListRuns)
  list(@Payload() message: ListRunsMessage): Promise<RunListResponse> {
    return this.runs.list(message);
  }

  @HandlesRequest(RunsPatterns.GetRun)
  async get(@Payload() message: RunRefMessage): Promise<RunResponse> {
    return { run: await this.runs.get(message.user_id, message.agent_id, message.run_id) };
  }

  @HandlesRequest(RunsPatterns.ListRunEvents)
  events(@Payload() message: RunEventsMessage): Promise<RunEventsResponse> {
    return this.runs.events(message);
  }

  @HandlesRequest(RunsPatterns.RunStreamHeads)
  streamHeads(@Payload() message: RunStreamHeadsMessage): Promise<RunStreamHeadsResponse> {
    return this.runs.streamHeads(message);
  }

  @HandlesRequest(RunsPatterns.CancelRun)
  cancel(@Payload() message: CancelRunMessage): Promise<SuccessResponse> {
    return this.runs.cancel(message.user_id, message.agent_id, message.run_id, message.reason ?? null);
  }

  @HandlesRequest(RunsPatterns.DeleteRun)
  async delete(@Payload() message: RunRefMessage): Promise<{ deleted: true }> {
    await this.runs.delete(message.user_id, message.agent_id, message.run_id);
    return { deleted: true };
  }
}

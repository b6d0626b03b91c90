import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CancelRunMessage,
  HandlesRequest,
  ListRunsMessage,
  RunEventsMessage,
  RunEventsResponse,
  RunListResponse,
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
  TriggeredRunStart,
} from '@aas/contracts';
import { toProblem } from '@aas/problem-details';
import { scheduleFireKey, triggerDeliveryKey } from '../acceptance/idempotency-keys';
import { RunAcceptance } from '../acceptance/run-acceptance.service';
import { RunsService } from './runs.service';

@Controller()
export class RunsHandlers {
  constructor(
    private readonly runs: RunsService,
    private readonly acceptance: RunAcceptance,
  ) {}

  @HandlesRequest(RunsPatterns.StartRun)
  async start(@Payload() message: StartRunMessage): Promise<RunResponse> {
    return { run: await this.runs.start(message) };
  }

  /** The fires of a schedule batch: a refused fire is reported in its outcome and does not fail the others. */
  @HandlesRequest(RunsPatterns.StartScheduledRuns)
  async startScheduledBatch(@Payload() message: StartScheduledRunsMessage): Promise<StartScheduledRunsResponse> {
    const outcomes = await this.acceptance.accept(
      message.fires.map((fire) => ({
        userId: fire.user_id,
        agentId: fire.agent_id,
        idempotencyKey: scheduleFireKey(fire.agent_id, fire.fire_time),
        runMode: 'run' as const,
        goal: null,
        trigger: { runKind: 'schedule' as const, scheduleAgentId: fire.agent_id },
        skipDeployCheck: false,
        dueAt: new Date(fire.fire_time),
        agentGeneration: fire.agent_generation,
      })),
    );
    return {
      outcomes: outcomes.map((outcome, i) => {
        const { agent_id, fire_time } = message.fires[i];
        return 'refusal' in outcome ? { agent_id, fire_time, refused: toProblem(outcome.refusal) } : { agent_id, fire_time, run_id: outcome.runId };
      }),
    };
  }

  /** Runs started by triggers: each start keyed by its trigger and delivery, so a repeat answers the first run. */
  @HandlesRequest(RunsPatterns.StartTriggeredRuns)
  async startTriggeredBatch(@Payload() message: StartTriggeredRunsMessage): Promise<StartTriggeredRunsResponse> {
    const outcomes = await this.acceptance.accept(
      message.starts.map((start) => ({
        userId: start.user_id,
        agentId: start.agent_id,
        idempotencyKey: triggerDeliveryKey(start.trigger_id, start.delivery_key),
        runMode: 'run' as const,
        goal: start.user_message ?? null,
        trigger: {
          runKind: start.trigger_kind,
          scheduleAgentId: null,
          triggerId: start.trigger_id,
          depth: start.depth,
          chainRootId: start.chain_root_id,
          data: triggerData(start),
        },
        skipDeployCheck: false,
        agentGeneration: start.agent_generation,
      })),
    );
    return {
      outcomes: outcomes.map((outcome) =>
        'refusal' in outcome ? { refused: toProblem(outcome.refusal) } : { run_id: outcome.runId, created: outcome.created },
      ),
    };
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

/** A start's trigger data, sent as an object or (inbound calls) as JSON text, which its sender produced with JSON.stringify. */
function triggerData(start: TriggeredRunStart): Record<string, unknown> | undefined {
  return start.data_json === undefined ? start.data : (JSON.parse(start.data_json) as Record<string, unknown>);
}

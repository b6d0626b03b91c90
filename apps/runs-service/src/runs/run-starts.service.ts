import { Injectable } from '@nestjs/common';
import {
  AgentsPatterns,
  ReplayRunMessage,
  RunDto,
  StartRunMessage,
  StartScheduledRunsMessage,
  StartScheduledRunsResponse,
  StartTriggeredRunsMessage,
  StartTriggeredRunsResponse,
} from '@aas/contracts';
import { ConflictError, toProblem } from '@aas/problem-details';
import { ServiceClient } from '@aas/platform';
import { apiRunStart } from '../acceptance/api-run-start';
import { replayRunStart, replayVersion, versionPrunedError } from '../acceptance/replay-run-start';
import { RunStartRequest } from '../acceptance/run-start-request';
import { RunAcceptance } from '../acceptance/run-acceptance.service';
import { scheduleFireStart } from '../acceptance/schedule-fire-start';
import { triggeredRunStart } from '../acceptance/triggered-run-start';
import { toRunDto } from './run.mapper';
import { RunStore } from './run.store';
import { RunsService } from './runs.service';

/**
 * The four requests that start runs, each through its run source (acceptance/) and the one
 * acceptance path. In a batch, a refused start is reported in its outcome and does not fail the others.
 */
@Injectable()
export class RunStarts {
  constructor(
    private readonly acceptance: RunAcceptance,
    private readonly runs: RunStore,
    private readonly owned: RunsService,
    private readonly services: ServiceClient,
  ) {}

  /** The API's start: the same Idempotency-Key (per user, 24 hours) answers the first request's run. */
  start(message: StartRunMessage): Promise<RunDto> {
    return this.startOne(apiRunStart(message));
  }

  /**
   * A replay of the caller's run, with its input, on the instructions version it ran (checked to be still
   * kept) or the agent's current ones; keyed, limited and admitted like a start.
   */
  async replay(message: ReplayRunMessage): Promise<RunDto> {
    const origin = await this.owned.find(message.user_id, message.agent_id, message.run_id);
    const version = replayVersion(origin, message.instructions ?? 'original');
    if ('refusal' in version) throw version.refusal;
    if (version.pinned !== null) {
      const kept = await this.services.request(AgentsPatterns.GetInstructionsVersion, {
        user_id: origin.userId,
        agent_id: origin.agentId,
        version_id: version.pinned,
      });
      if (kept.instructions === null) throw versionPrunedError(origin.agentId, version.pinned);
    }
    return this.startOne(replayRunStart(message, origin, version.pinned));
  }

  private async startOne(request: RunStartRequest): Promise<RunDto> {
    const [outcome] = await this.acceptance.accept([request]);
    if ('refusal' in outcome) throw outcome.refusal;
    const run = await this.runs.findById(outcome.runId);
    if (!run) throw new ConflictError('This Idempotency-Key was already used for another request within the last 24 hours');
    return toRunDto(run);
  }

  /** A batch of a schedule's fires (and backfills), each answered with its fire. */
  async startScheduled(message: StartScheduledRunsMessage): Promise<StartScheduledRunsResponse> {
    const outcomes = await this.acceptance.accept(message.fires.map((fire) => scheduleFireStart(fire)));
    return {
      outcomes: outcomes.map((outcome, i) => {
        const { agent_id, fire_time } = message.fires[i];
        return 'refusal' in outcome ? { agent_id, fire_time, refused: toProblem(outcome.refusal) } : { agent_id, fire_time, run_id: outcome.runId };
      }),
    };
  }

  /** A batch of triggers' starts (event triggers, inbound hooks), answered in order. */
  async startTriggered(message: StartTriggeredRunsMessage): Promise<StartTriggeredRunsResponse> {
    const outcomes = await this.acceptance.accept(message.starts.map((start) => triggeredRunStart(start)));
    return {
      outcomes: outcomes.map((outcome) => ('refusal' in outcome ? { refused: toProblem(outcome.refusal) } : { run_id: outcome.runId, created: outcome.created })),
    };
  }
}

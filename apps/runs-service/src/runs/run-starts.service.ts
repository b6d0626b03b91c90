import { Injectable } from '@nestjs/common';
import {
  RunDto,
  StartRunMessage,
  StartScheduledRunsMessage,
  StartScheduledRunsResponse,
  StartTriggeredRunsMessage,
  StartTriggeredRunsResponse,
} from '@aas/contracts';
import { ConflictError, toProblem } from '@aas/problem-details';
import { apiRunStart } from '../acceptance/api-run-start';
import { RunAcceptance } from '../acceptance/run-acceptance.service';
import { scheduleFireStart } from '../acceptance/schedule-fire-start';
import { triggeredRunStart } from '../acceptance/triggered-run-start';
import { toRunDto } from './run.mapper';
import { RunStore } from './run.store';

/**
 * The three requests that start runs, each through its run source (acceptance/) and the one
 * acceptance path. In a batch, a refused start is reported in its outcome and does not fail the others.
 */
@Injectable()
export class RunStarts {
  constructor(
    private readonly acceptance: RunAcceptance,
    private readonly runs: RunStore,
  ) {}

  /** The API's start: the same Idempotency-Key (per user, 24 hours) answers the first request's run. */
  async start(message: StartRunMessage): Promise<RunDto> {
    const [outcome] = await this.acceptance.accept([apiRunStart(message)]);
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

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
import { Batcher, ServiceClient } from '@aas/platform';
import { ConflictError, DomainError, toProblem } from '@aas/problem-details';
import { apiRunStart } from '../acceptance/api-run-start';
import { replayRunStart, replayVersion, versionPrunedError } from '../acceptance/replay-run-start';
import { RunStartRequest } from '../acceptance/run-start-request';
import { RunAcceptance } from '../acceptance/run-acceptance.service';
import { scheduleFireStart } from '../acceptance/schedule-fire-start';
import { triggeredRunStart } from '../acceptance/triggered-run-start';
import { toRunDto } from './run.mapper';
import { RunStore } from './run.store';
import { RunsService } from './runs.service';

/** Most API starts accepted in one transaction, and such transactions at once per replica (of RUN_ACCEPTANCE_POOL_SIZE connections). */
const API_START_BATCH_MAX = 100;
const API_START_BATCHES = 2;

type ApiStartResult = { run: RunDto } | { refusal: DomainError };

/**
 * The four requests that start runs, each through its run source (acceptance/) and the one
 * acceptance path. In a batch, a refused start is reported in its outcome and does not fail the others.
 */
@Injectable()
export class RunStarts {
  /**
   * API starts that arrive together are accepted in one transaction (group commit, as inbound calls are
   * in scheduler-service): concurrent starts of one user otherwise queue one transaction at a time on
   * the user's admission lock. A batch that failed with a domain error is run again in halves, so only
   * the start to blame fails; any other failure (an outage) fails the batch's callers.
   */
  private readonly apiStarts = new Batcher<RunStartRequest, ApiStartResult>((requests) => this.startTogether(requests), {
    maxBatchSize: API_START_BATCH_MAX,
    maxConcurrentBatches: API_START_BATCHES,
    retryItemsAlone: (error) => error instanceof DomainError,
  });

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
  replay(message: ReplayRunMessage): Promise<RunDto> {
    return this.replayKeyed(message, undefined);
  }

  /** A bulk action's replay of one run, under a key of the action's namespace (idempotency-keys.ts) rather than a client's. */
  replayForBulkAction(message: ReplayRunMessage, idempotencyKey: string): Promise<RunDto> {
    return this.replayKeyed(message, idempotencyKey);
  }

  /** `idempotencyKey` undefined: the client's Idempotency-Key, if any. */
  private async replayKeyed(message: ReplayRunMessage, idempotencyKey: string | undefined): Promise<RunDto> {
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
    const start = idempotencyKey === undefined ? replayRunStart(message, origin, version.pinned) : replayRunStart(message, origin, version.pinned, idempotencyKey);
    return this.startOne(start);
  }

  private async startOne(request: RunStartRequest): Promise<RunDto> {
    const result = await this.apiStarts.submit(request);
    if ('refusal' in result) throw result.refusal;
    return result.run;
  }

  /** API starts (and replays) accepted in one transaction, and their runs read back with one query. */
  private async startTogether(requests: RunStartRequest[]): Promise<ApiStartResult[]> {
    const outcomes = await this.acceptance.accept(requests);
    const ids = outcomes.flatMap((outcome) => ('refusal' in outcome ? [] : [outcome.runId]));
    const runs = new Map((await this.runs.findByIds([...new Set(ids)])).map((run) => [run.id, run]));
    return outcomes.map((outcome) => {
      if ('refusal' in outcome) return { refusal: outcome.refusal };
      const run = runs.get(outcome.runId);
      // The key's run was deleted since: the key still names it for 24 hours.
      return run ? { run: toRunDto(run) } : { refusal: new ConflictError('This Idempotency-Key was already used for another request within the last 24 hours') };
    });
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

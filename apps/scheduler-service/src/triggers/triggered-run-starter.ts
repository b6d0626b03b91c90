import { Injectable } from '@nestjs/common';
import { RUN_START_BATCH_MAX, RunsPatterns, StartTriggeredRunsResponse, TriggeredRunStart } from '@aas/contracts';
import { Batcher, ServiceClient, refusedWhole, settleSplitting } from '@aas/platform';
import { RemoteProblemError } from '@aas/problem-details';

export type TriggeredRunOutcome = StartTriggeredRunsResponse['outcomes'][number];

/** Batches of inbound starts in flight at once; calls arriving meanwhile gather for the next one. */
const CONCURRENT_BATCHES = 4;

/**
 * Asks runs-service (the one acceptance path) for the runs of trigger starts. Inbound calls arrive one
 * by one, and each accepted run of an agent takes that agent's run number under a lock: calls that
 * arrive together go as one request, accepted in one transaction (group commit), instead of queueing
 * on the lock one transaction at a time. A refusal is its own start's outcome. A request runs-service
 * refused as a whole (400, 500: one start it could not store rolls the transaction back) is split and
 * sent again in halves down to single starts, so only the start to blame is refused; every start is
 * keyed by its trigger and delivery, so none is accepted twice. An outage or timeout fails them all.
 */
@Injectable()
export class TriggeredRunStarter {
  private readonly inbound = new Batcher<TriggeredRunStart, TriggeredRunOutcome>((starts) => this.start(starts), {
    maxBatchSize: RUN_START_BATCH_MAX,
    maxConcurrentBatches: CONCURRENT_BATCHES,
  });

  constructor(private readonly services: ServiceClient) {}

  /** One start, sent with whatever other starts are waiting. */
  startOne(start: TriggeredRunStart): Promise<TriggeredRunOutcome> {
    return this.inbound.submit(start);
  }

  /** One outcome per start, in order; a start runs-service refused alone is answered as refused with its problem. */
  async start(starts: TriggeredRunStart[]): Promise<TriggeredRunOutcome[]> {
    const settled = await settleSplitting(starts, (batch) => this.request(batch), refusedWhole);
    return settled.map((result) => {
      if ('value' in result) return result.value;
      if (result.error instanceof RemoteProblemError && refusedWhole(result.error)) return { refused: result.error.problem };
      throw result.error;
    });
  }

  private async request(starts: TriggeredRunStart[]): Promise<TriggeredRunOutcome[]> {
    const { outcomes } = await this.services.request(RunsPatterns.StartTriggeredRuns, { starts });
    return outcomes;
  }
}

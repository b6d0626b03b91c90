import { Injectable } from '@nestjs/common';
import { RUN_START_BATCH_MAX, RunsPatterns, StartTriggeredRunsResponse, TriggeredRunStart } from '@aas/contracts';
import { Batcher, ServiceClient } from '@aas/platform';

export type TriggeredRunOutcome = StartTriggeredRunsResponse['outcomes'][number];

/** Batches of inbound starts in flight at once; calls arriving meanwhile gather for the next one. */
const CONCURRENT_BATCHES = 4;

/**
 * Asks runs-service (the one acceptance path) for the runs of trigger starts. Inbound calls arrive one
 * by one, and each accepted run of an agent takes that agent's run number under a lock: calls that
 * arrive together go as one request, accepted in one transaction (group commit), instead of queueing
 * on the lock one transaction at a time. A refusal is its own start's outcome; a failed request fails
 * the starts it carried, each of which was then not accepted.
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

  async start(starts: TriggeredRunStart[]): Promise<TriggeredRunOutcome[]> {
    if (starts.length === 0) return [];
    const { outcomes } = await this.services.request<StartTriggeredRunsResponse>(RunsPatterns.StartTriggeredRuns, { starts });
    return outcomes;
  }
}

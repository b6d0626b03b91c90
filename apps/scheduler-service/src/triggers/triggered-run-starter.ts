import { Injectable } from '@nestjs/common';
import { RunsPatterns, StartTriggeredRunsResponse, TriggeredRunStart } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';

/** Asks runs-service (the one acceptance path) for the runs of trigger starts, each on its own. */
@Injectable()
export class TriggeredRunStarter {
  constructor(private readonly services: ServiceClient) {}

  async start(starts: TriggeredRunStart[]): Promise<StartTriggeredRunsResponse['outcomes']> {
    if (starts.length === 0) return [];
    const { outcomes } = await this.services.request<StartTriggeredRunsResponse>(RunsPatterns.StartTriggeredRuns, { starts });
    return outcomes;
  }
}

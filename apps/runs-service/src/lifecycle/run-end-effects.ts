import { Injectable } from '@nestjs/common';
import { AgentsPatterns, RUN_ENDS_BATCH_MAX, RunEndEffects, SchedulerPatterns } from '@aas/contracts';
import { Batcher, ServiceClient } from '@aas/platform';

/** Applies a run end's effects in the services it changes, and settles once they are committed there. */
export abstract class RunEndEffectsApplier {
  abstract apply(end: RunEndEffects): Promise<void>;
}

/**
 * By request (RecordRunEnds), agents-service first, then scheduler-service: the event-trigger starts
 * the latter makes tell the world the run ended, so they come after the agent shows it. Ends finishing
 * at once go together, one request per service for up to RUN_ENDS_BATCH_MAX of them.
 */
@Injectable()
export class RequestedRunEndEffects extends RunEndEffectsApplier {
  private readonly agents: Batcher<RunEndEffects, void>;
  private readonly scheduler: Batcher<RunEndEffects, void>;

  constructor(private readonly services: ServiceClient) {
    super();
    const options = { maxBatchSize: RUN_ENDS_BATCH_MAX, maxConcurrentBatches: 4 };
    this.agents = new Batcher((ends) => this.send(AgentsPatterns.RecordRunEnds, ends), options);
    this.scheduler = new Batcher((ends) => this.send(SchedulerPatterns.RecordRunEnds, ends), options);
  }

  async apply(end: RunEndEffects): Promise<void> {
    await this.agents.submit(end);
    await this.scheduler.submit(end);
  }

  private async send(pattern: typeof AgentsPatterns.RecordRunEnds | typeof SchedulerPatterns.RecordRunEnds, ends: RunEndEffects[]): Promise<void[]> {
    await this.services.request(pattern, { ends });
    return ends.map(() => undefined);
  }
}

import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { FanOutStore, LifecycleEventDeliveries } from './fan-out.store';

/** The fan-out in memory (database/in-memory-database.fake.ts); left out of the build. */
export class FakeFanOutStore implements FanOutStore {
  constructor(private readonly db: InMemoryDatabase) {}

  async createDeliveries(event: LifecycleEventDeliveries): Promise<string[]> {
    const { webhooks, deliveries } = this.db.tables;
    const ofAgent = new Set(webhooks.filter((w) => w.agentId === event.agentId).map((w) => w.id));
    const earlier = deliveries.filter((d) => d.sourceEventId === event.sourceEventId && ofAgent.has(d.webhookId));
    const stillPending = earlier.filter((d) => d.status === 'pending').map((d) => d.id);
    const made = webhooks
      .filter(
        (w) =>
          w.agentId === event.agentId &&
          w.status === 'active' &&
          w.events.includes(event.event) &&
          (event.agentGeneration === null || w.agentGeneration === null || Number(w.agentGeneration) === event.agentGeneration) &&
          !earlier.some((d) => d.webhookId === w.id),
      )
      .map((w) => this.db.addDelivery(w.id, {
            sourceEventId: event.sourceEventId,
            event: event.event,
            body: event.body,
            chainRootId: event.chain.rootRunId,
            chainDepth: event.chain.depth,
            runId: event.runId,
          }).id);
    return [...made, ...stillPending];
  }

  async deleteOfRuns(runIds: string[]): Promise<number> {
    const runs = new Set(runIds);
    return this.db.deleteDeliveries((d) => d.runId !== null && runs.has(d.runId));
  }
}

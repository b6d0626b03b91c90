import { Processor, WorkerHost } from '@nestjs/bullmq';
import { EventNames, QueueNames, parseJob } from '@aas/contracts';
import { InJobRequestContext } from '@aas/platform';
import { Job } from 'bullmq';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { webhookBody } from '../signing/webhook-body';
import { WebhookStore } from '../subscriptions/webhook.store';
import { FanOutStore } from './fan-out.store';

/**
 * Turns a run lifecycle event into one delivery per active webhook of the agent
 * subscribed to it. Re-processing the same event makes no second delivery
 * (unique per webhook and event) and re-queues pending ones under their own id.
 * agent.deleted, on the same queue, deletes that agent's webhooks; runs.purged the deliveries of deleted runs.
 */
@Processor(QueueNames.WebhooksEvents, { concurrency: 16 })
export class WebhookEventsConsumer extends WorkerHost {
  constructor(
    private readonly fanOut: FanOutStore,
    private readonly webhooks: WebhookStore,
    private readonly deliveries: DeliveryQueue,
  ) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job): Promise<void> {
    const parsed = parseJob(QueueNames.WebhooksEvents, job);
    if (parsed.name === EventNames.AgentDeleted) {
      // That agent generation's webhooks (or older ones'), never those of a new agent that took the id.
      const deleted = parsed.data;
      return this.webhooks.deleteOfAgent(deleted.agent_id, deleted.user_id, deleted.generation);
    }
    if (parsed.name === EventNames.RunsPurged) {
      await this.fanOut.deleteOfRuns(parsed.data.run_ids);
      return;
    }
    const event = parsed.data;
    const pending = await this.fanOut.createDeliveries({
      agentId: event.agent_id,
      runId: event.run_id,
      agentGeneration: event.agent_generation ?? null,
      sourceEventId: job.id!,
      event: event.event,
      body: webhookBody(event),
      chain: { rootRunId: event.chain_root_id ?? event.run_id, depth: event.trigger_depth ?? 0 },
    });
    await this.deliveries.queueNew(pending);
  }
}

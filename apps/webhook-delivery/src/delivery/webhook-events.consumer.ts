import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { InjectDataSource } from '@nestjs/typeorm';
import { AgentDeletedEvent, EventNames, QueueNames, RunLifecycleEvent } from '@aas/contracts';
import { InJobRequestContext } from '@aas/platform';
import { Job, Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { deliveryJob } from './delivery-job';
import { webhookBody } from './webhook-body';

/**
 * Turns a run lifecycle event into one delivery per active webhook of the agent
 * subscribed to it. Re-processing the same event makes no second delivery
 * (unique per webhook and event) and re-queues pending ones under their own id.
 */
@Processor(QueueNames.WebhooksEvents, { concurrency: 16 })
export class WebhookEventsConsumer extends WorkerHost {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectQueue(QueueNames.WebhookDeliveries) private readonly deliveries: Queue,
  ) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job<RunLifecycleEvent | AgentDeletedEvent>): Promise<void> {
    if (job.name === EventNames.AgentDeleted) {
      // That agent generation's webhooks (or older ones'), never those of a new agent that took the id.
      const deleted = job.data as AgentDeletedEvent;
      await this.dataSource.query(
        `DELETE FROM webhooks WHERE agent_id = $1 AND user_id = $2
            AND ($3::bigint IS NULL OR agent_generation IS NULL OR agent_generation <= $3)`,
        [deleted.agent_id, deleted.user_id, deleted.generation ?? null],
      );
      return;
    }
    const event = job.data as RunLifecycleEvent;
    const sourceEventId = job.id!;
    // One round trip, by index: the new deliveries, and those of an earlier run of this event that are
    // still pending (the CTE's snapshot predates the insert, so the two never overlap).
    const pending: { id: string }[] = await this.dataSource.query(
      `WITH created AS (
         INSERT INTO deliveries (webhook_id, source_event_id, event, body)
         SELECT id, $2, $3, $4 FROM webhooks WHERE agent_id = $1 AND status = 'active' AND $3 = ANY(events)
            AND ($5::bigint IS NULL OR agent_generation IS NULL OR agent_generation = $5)
         ON CONFLICT (webhook_id, source_event_id) DO NOTHING
         RETURNING id
       )
       SELECT id FROM created
       UNION ALL
       SELECT d.id FROM webhooks w JOIN deliveries d ON d.webhook_id = w.id AND d.source_event_id = $2
        WHERE w.agent_id = $1 AND d.status = 'pending'`,
      [event.agent_id, sourceEventId, event.event, webhookBody(event), event.agent_generation ?? null],
    );
    await this.deliveries.addBulk(pending.map((d) => deliveryJob(d.id)));
  }
}

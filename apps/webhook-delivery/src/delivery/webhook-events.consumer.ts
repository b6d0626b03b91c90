import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { InjectDataSource } from '@nestjs/typeorm';
import { AgentDeletedEvent, EventNames, QueueNames, RunLifecycleEvent } from '@aas/contracts';
import { Job, Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { WebhookEntity } from '../subscriptions/webhook.entity';
import { DeliveryEntity } from './delivery.entity';
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

  async process(job: Job<RunLifecycleEvent | AgentDeletedEvent>): Promise<void> {
    if (job.name === EventNames.AgentDeleted) {
      await this.dataSource.manager.delete(WebhookEntity, { agentId: job.data.agent_id });
      return;
    }
    const event = job.data as RunLifecycleEvent;
    const sourceEventId = job.id!;
    await this.dataSource.query(
      `INSERT INTO deliveries (webhook_id, source_event_id, event, body)
       SELECT id, $2, $3, $4 FROM webhooks WHERE agent_id = $1 AND status = 'active' AND $3 = ANY(events)
       ON CONFLICT (webhook_id, source_event_id) DO NOTHING`,
      [event.agent_id, sourceEventId, event.event, webhookBody(event)],
    );
    const pending = await this.dataSource.manager.find(DeliveryEntity, {
      select: { id: true },
      where: { sourceEventId, status: 'pending' },
    });
    await this.deliveries.addBulk(
      pending.map((d) => ({
        name: 'deliver',
        data: { delivery_id: d.id },
        opts: { jobId: d.id, removeOnComplete: { age: 3600 }, removeOnFail: { age: 24 * 3600 } },
      })),
    );
  }
}

import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { OutboxRelay } from './outbox.relay';

@Global()
@Module({
  imports: [
    BullModule.registerQueue(
      { name: QueueNames.RunsEvents },
      { name: QueueNames.SchedulerEvents },
      { name: QueueNames.WebhooksEvents },
    ),
  ],
  providers: [OutboxRelay],
  exports: [OutboxRelay],
})
export class OutboxModule {}

import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { PostgresTransactions, Transactions } from '@aas/platform';
import { PostgresRetentionStore } from './postgres-retention.store';
import { RetentionStore } from './retention.store';
import { RunDeletions } from './run-deletions';
import { RunDeletionsHandlers } from './run-deletions.handlers';
import { RunRetention } from './run-retention';

/** Deleting finished runs in batches: past their retention, and those a user asks to delete (docs/retention.md). */
@Module({
  // runs-maintenance: a deletion's purge starts at once, on the queue of the periodic purges.
  imports: [BullModule.registerQueue({ name: QueueNames.RunsMaintenance })],
  controllers: [RunDeletionsHandlers],
  providers: [
    RunRetention,
    RunDeletions,
    { provide: RetentionStore, useClass: PostgresRetentionStore },
    { provide: Transactions, useClass: PostgresTransactions },
  ],
  exports: [RunRetention, RunDeletions, BullModule],
})
export class RetentionModule {}

import { Module } from '@nestjs/common';
import { PostgresTransactions, Transactions } from '@aas/platform';
import { PostgresRetentionStore } from './postgres-retention.store';
import { RetentionStore } from './retention.store';
import { RunRetention } from './run-retention';

/** Deleting finished runs past their retention, in batches (docs/retention.md). */
@Module({
  providers: [RunRetention, { provide: RetentionStore, useClass: PostgresRetentionStore }, { provide: Transactions, useClass: PostgresTransactions }],
  exports: [RunRetention],
})
export class RetentionModule {}

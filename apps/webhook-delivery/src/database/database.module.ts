import { Module } from '@nestjs/common';
import { PostgresTransactions, Transactions } from '@aas/platform';

const PROVIDERS = [{ provide: Transactions, useClass: PostgresTransactions }];

/** The unit-of-work seam; each folder's module provides its own stores. */
@Module({ providers: PROVIDERS, exports: PROVIDERS })
export class DatabaseModule {}

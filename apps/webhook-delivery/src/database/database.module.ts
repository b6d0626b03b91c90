import { Module } from '@nestjs/common';
import { PostgresTransactions } from './postgres-transactions';
import { Transactions } from './transactions';

const PROVIDERS = [{ provide: Transactions, useClass: PostgresTransactions }];

/** The unit-of-work seam; each folder's module provides its own stores. */
@Module({ providers: PROVIDERS, exports: PROVIDERS })
export class DatabaseModule {}

import { Module } from '@nestjs/common';
import { PostgresTransactions, Transactions } from '@aas/platform';

const PROVIDERS = [{ provide: Transactions, useClass: PostgresTransactions }];

/** Units of work over several stores (Transactions.run); each feature module binds its own stores. */
@Module({ providers: PROVIDERS, exports: PROVIDERS })
export class DatabaseModule {}

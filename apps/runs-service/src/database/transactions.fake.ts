import { Transaction, Transactions, inUnitOfWork } from '@aas/platform';

/**
 * Runs the work at once, for unit tests on fakes: the fakes write as they go, so a unit of work that
 * throws is not rolled back here (the PostgreSQL stores' tests cover that); its effects after the
 * commit are dropped, as on PostgreSQL.
 */
export class FakeTransactions extends Transactions {
  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return inUnitOfWork<object, T>((inside) => inside({}), (_handle, tx) => work(tx));
  }
}

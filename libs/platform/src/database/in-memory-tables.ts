import { randomUUID } from 'node:crypto';
import { inUnitOfWork } from './after-commit';
import { Transaction, Transactions } from './transactions';

/**
 * A service's schema in memory, for unit tests of its services with its stores' fakes
 * (`*.store.fake.ts`): the tables the fakes read and write, a clock the tests can move (PostgreSQL's
 * now() for the fakes), and transactions that roll back what their work wrote when it throws. Each
 * app keeps its own tables and row builders in a subclass.
 */
export abstract class InMemoryTables<T> {
  tables: T;
  readonly transactions: Transactions = new InMemoryTransactions(this);
  private clockOffsetMs = 0;
  private readonly live = new Set<Transaction>();

  protected constructor(empty: () => T) {
    this.tables = empty();
  }

  /** The database's clock, in ms. */
  protected clockMs(): number {
    return Date.now() + this.clockOffsetMs;
  }

  advanceClock(ms: number): void {
    this.clockOffsetMs += ms;
  }

  /** A statement that must run in a transaction: refuses one that has ended (or never began). */
  inTransaction(tx: Transaction): void {
    if (!this.live.has(tx)) throw new Error('a statement ran outside its transaction');
  }

  /** Like PostgresTransactions.run: effects registered with afterCommit run only once the work resolved. */
  transaction<R>(work: (tx: Transaction) => Promise<R>): Promise<R> {
    return inUnitOfWork<Transaction, R>((inside) => this.attempt(inside), (_handle, tx) => work(tx));
  }

  private async attempt<R>(work: (tx: Transaction) => Promise<R>): Promise<R> {
    const before = structuredClone(this.tables);
    const tx = { id: randomUUID() } as unknown as Transaction;
    this.live.add(tx);
    try {
      return await work(tx);
    } catch (error) {
      this.tables = before;
      throw error;
    } finally {
      this.live.delete(tx);
    }
  }
}

class InMemoryTransactions extends Transactions {
  constructor(private readonly tables: InMemoryTables<unknown>) {
    super();
  }

  run<R>(work: (tx: Transaction) => Promise<R>): Promise<R> {
    return this.tables.transaction(work);
  }
}

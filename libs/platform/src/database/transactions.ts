declare const inTransaction: unique symbol;

/**
 * A PostgreSQL transaction in progress, opaque outside the stores: a service hands it from one
 * store call to the next, so that what they write commits (or rolls back) together.
 */
export interface Transaction {
  readonly [inTransaction]: true;
}

/** A read of one row: inside `tx` when given, locked against other writers (until `tx` ends) when `lock`. */
export interface RowRead {
  tx?: Transaction;
  lock?: boolean;
}

/** Where a service's unit of work begins and ends; the decisions inside it stay in the service. */
export abstract class Transactions {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  abstract run<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}

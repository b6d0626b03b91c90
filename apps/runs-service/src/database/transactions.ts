declare const inTransaction: unique symbol;

/**
 * A PostgreSQL transaction in progress, opaque outside the stores: a service hands it from one
 * store call to the next, so that what they write commits (or rolls back) together.
 */
export interface Transaction {
  readonly [inTransaction]: true;
}

/** Where a service's unit of work begins and ends; the decisions inside it stay in the service. */
export abstract class Transactions {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  abstract run<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { inUnitOfWork } from './after-commit';
import { Transaction, Transactions } from './transactions';

/** Transactions on the service's own data source (its schema): a Transaction is the transaction's EntityManager. */
@Injectable()
export class PostgresTransactions extends Transactions {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return transactionOn(this.dataSource, (_manager, tx) => work(tx));
  }
}

/**
 * For the stores that open their own transaction (on any data source): a unit of work whose `tx`
 * takes effects to run after the commit (afterCommit), like Transactions.run.
 */
export function transactionOn<T>(dataSource: DataSource, work: (manager: EntityManager, tx: Transaction) => Promise<T>): Promise<T> {
  return inUnitOfWork<EntityManager, T>((inside) => dataSource.transaction(inside), work);
}

/** For the stores: a transaction's EntityManager (of any data source) as the opaque Transaction. */
export function asTransaction(manager: EntityManager): Transaction {
  return manager as unknown as Transaction;
}

/** For the stores: the transaction's own EntityManager, or the data source's when there is none. */
export function managerOf(dataSource: DataSource, tx: Transaction | undefined): EntityManager {
  return tx === undefined ? dataSource.manager : (tx as unknown as EntityManager);
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Transaction, Transactions } from './transactions';

/** Transactions on the service's own data source (its schema): a Transaction is the transaction's EntityManager. */
@Injectable()
export class PostgresTransactions extends Transactions {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(asTransaction(manager)));
  }
}

/** For the stores: a transaction's EntityManager (of any data source) as the opaque Transaction. */
export function asTransaction(manager: EntityManager): Transaction {
  return manager as unknown as Transaction;
}

/** For the stores: the transaction's own EntityManager, or the data source's when there is none. */
export function managerOf(dataSource: DataSource, tx: Transaction | undefined): EntityManager {
  return tx === undefined ? dataSource.manager : (tx as unknown as EntityManager);
}

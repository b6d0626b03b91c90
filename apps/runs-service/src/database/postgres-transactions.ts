import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Transaction, Transactions } from './transactions';

/** Transactions on the runs schema's main data source: a Transaction is the transaction's EntityManager. */
@Injectable()
export class PostgresTransactions extends Transactions {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(asTransaction(manager)));
  }
}

/** For the stores: a transaction's EntityManager (of either data source) as the opaque Transaction. */
export function asTransaction(manager: EntityManager): Transaction {
  return manager as unknown as Transaction;
}

/** For the stores: the transaction's own EntityManager. */
export function managerOf(tx: Transaction): EntityManager {
  return tx as unknown as EntityManager;
}

import { Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * What to do when work inside a transaction asks its own pool for a second connection:
 * `refuse` fails that query (tests run so), `log` logs it once per call site and lets it wait.
 */
export const NESTED_CONNECTION_POLICIES = ['refuse', 'log'] as const;
export type NestedConnectionPolicy = (typeof NESTED_CONNECTION_POLICIES)[number];

/** A transaction's work in progress, and the pool its connection came from. */
interface OpenTransaction {
  pool: Pool;
  open: boolean;
}

const openTransaction = new AsyncLocalStorage<OpenTransaction>();
const logger = new Logger('NestedConnectionGuard');
const loggedSites = new Set<string>();

/**
 * A transaction holding a connection while it waits for another one of the same pool: when the pool
 * is exhausted by such transactions, each waits for the others for ever (issue: build runs finishing
 * at once wedged agents-service). The query must go through the transaction instead.
 */
export class NestedConnectionError extends Error {
  constructor() {
    super('A query inside a transaction asked the same pool for a second connection; pass the transaction to the store instead');
    this.name = 'NestedConnectionError';
  }
}

/**
 * Watches `dataSource` for the deadlock above: its transactions mark their work with the pool they hold a
 * connection of, and its pool checks each connection it hands out against that mark.
 */
export function guardNestedConnections(dataSource: DataSource, policy: NestedConnectionPolicy): DataSource {
  const pool = (dataSource.driver as PostgresDriver).master as Pool;
  markTransactions(dataSource.manager, pool);
  const connect = pool.connect.bind(pool) as (callback?: (...args: unknown[]) => void) => unknown;
  pool.connect = ((callback?: (...args: unknown[]) => void) => {
    const held = openTransaction.getStore();
    if (held?.open && held.pool === pool) {
      const error = new NestedConnectionError();
      if (policy === 'refuse') {
        if (callback) return void process.nextTick(() => callback(error));
        return Promise.reject(error);
      }
      logOnce(error);
    }
    return connect(callback);
  }) as Pool['connect'];
  return dataSource;
}

function markTransactions(manager: EntityManager, pool: Pool): void {
  const transaction = manager.transaction.bind(manager) as (...args: unknown[]) => Promise<unknown>;
  manager.transaction = ((isolationOrWork: unknown, maybeWork?: unknown) => {
    const work = (typeof isolationOrWork === 'function' ? isolationOrWork : maybeWork) as (tx: EntityManager) => Promise<unknown>;
    const marked = async (tx: EntityManager): Promise<unknown> => {
      const held: OpenTransaction = { pool, open: true };
      try {
        return await openTransaction.run(held, () => work(tx));
      } finally {
        // Work the transaction started and left running (a timer, a promise not awaited) may connect once it ended.
        held.open = false;
      }
    };
    return typeof isolationOrWork === 'function' ? transaction(marked) : transaction(isolationOrWork, marked);
  }) as EntityManager['transaction'];
}

function logOnce(error: NestedConnectionError): void {
  const site = error.stack ?? '';
  if (loggedSites.has(site)) return;
  loggedSites.add(site);
  logger.error({ err: error }, error.message);
}

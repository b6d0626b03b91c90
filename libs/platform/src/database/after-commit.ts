import { Logger } from '@nestjs/common';
import { Transaction } from './transactions';

/** Something that must happen once a unit of work has committed: a relay kick, a signal, an announcement. */
export type AfterCommitEffect = () => void | Promise<void>;

const logger = new Logger('AfterCommit');
/** The effects each open unit of work has registered, by its transaction handle. */
const registered = new WeakMap<object, AfterCommitEffect[]>();

/**
 * Registers `effect` to run once `tx` has committed, never after a rollback. Effects run in the order
 * registered, each awaited, before the unit of work answers its caller.
 */
export function afterCommit(tx: Transaction, effect: AfterCommitEffect): void {
  const effects = registered.get(tx);
  // A handle not opened by a unit of work (Transactions.run, inUnitOfWork) would drop the effect silently.
  if (!effects) throw new Error('afterCommit: the transaction was not opened as a unit of work');
  effects.push(effect);
}

/**
 * Runs `work` through `begin` (which opens a transaction, hands its handle to the work, commits when the
 * work resolves and rolls back when it throws), then, only if it committed, the effects the work
 * registered. An effect that throws is logged and the others still run: the commit stands, and each
 * effect only hurries what a sweep or poll would do anyway (the relay's poll, the admission sweep).
 */
export async function inUnitOfWork<H extends object, T>(
  begin: (inside: (handle: H) => Promise<T>) => Promise<T>,
  work: (handle: H, tx: Transaction) => Promise<T>,
): Promise<T> {
  const effects: AfterCommitEffect[] = [];
  const result = await begin((handle) => {
    registered.set(handle, effects);
    return work(handle, handle as unknown as Transaction);
  });
  for (const effect of effects) {
    try {
      await effect();
    } catch (error) {
      logger.warn({ err: error }, `an effect after a commit failed: ${(error as Error).message}`);
    }
  }
  return result;
}

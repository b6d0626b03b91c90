import { Logger } from '@nestjs/common';
import { afterCommit } from './after-commit';
import { InMemoryTables } from './in-memory-tables';
import { Transaction } from './transactions';

class Counter extends InMemoryTables<{ count: number }> {
  constructor() {
    super(() => ({ count: 0 }));
  }
}

describe(afterCommit.name, () => {
  const setup = () => {
    const db = new Counter();
    const seen: string[] = [];
    const write = async (tx: Transaction, label: string) => {
      db.inTransaction(tx);
      db.tables.count++;
      afterCommit(tx, () => void seen.push(`${label} saw ${db.tables.count}`));
    };
    return { db, seen, write };
  };

  beforeAll(() => Logger.overrideLogger(false));

  it('runs the effects once the work has committed, in the order registered, before the unit answers', async () => {
    const { db, seen, write } = setup();
    const answer = await db.transactions.run(async (tx) => {
      await write(tx, 'first');
      await write(tx, 'second');
      expect(seen).toEqual([]);
      return 'done';
    });
    expect([answer, seen]).toEqual(['done', ['first saw 2', 'second saw 2']]);
  });

  it('drops the effects of a unit of work that rolls back', async () => {
    const { db, seen, write } = setup();
    const failed = db.transactions.run(async (tx) => {
      await write(tx, 'lost');
      throw new Error('refused');
    });
    await expect(failed).rejects.toThrow('refused');
    expect([db.tables.count, seen]).toEqual([0, []]);
  });

  it('awaits each effect before the next one', async () => {
    const { db } = setup();
    const order: string[] = [];
    await db.transactions.run(async (tx) => {
      afterCommit(tx, async () => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        order.push('slow');
      });
      afterCommit(tx, () => void order.push('fast'));
    });
    expect(order).toEqual(['slow', 'fast']);
  });

  it('logs an effect that throws, runs the others, and keeps the commit and the answer', async () => {
    const { db, seen, write } = setup();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const answer = await db.transactions.run(async (tx) => {
      afterCommit(tx, () => Promise.reject(new Error('redis is down')));
      await write(tx, 'after');
      return 'committed';
    });
    expect([answer, db.tables.count, seen]).toEqual(['committed', 1, ['after saw 1']]);
    expect(warn).toHaveBeenCalledWith(expect.anything(), expect.stringContaining('redis is down'));
    warn.mockRestore();
  });

  it('refuses a handle that no unit of work opened, rather than drop the effect', () => {
    expect(() => afterCommit({} as Transaction, () => undefined)).toThrow(/not opened as a unit of work/);
  });

  it('keeps the effects of two units of work apart', async () => {
    const { db, seen, write } = setup();
    await Promise.all([db.transactions.run((tx) => write(tx, 'a')), db.transactions.run((tx) => write(tx, 'b'))]);
    expect(seen.map((s) => s.slice(0, 1)).sort()).toEqual(['a', 'b']);
  });
});

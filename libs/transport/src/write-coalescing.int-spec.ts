import Redis from 'ioredis';
import { TEST_REDIS_URL } from '../../../test/support/isolated-infra';
import { holdWritesForThisTurn } from './write-coalescing';

/** Against real Redis: commands of one turn leave in one write, and all of them are answered. */
describe('holdWritesForThisTurn', () => {
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(TEST_REDIS_URL);
    await redis.ping();
  });
  afterAll(() => redis.quit());

  /** Counts the socket's writes to the kernel (one per write or writev) while `act` runs. */
  async function writesDuring(act: () => Promise<unknown>): Promise<number> {
    const socket = redis.stream as unknown as { _writeGeneric: (...args: unknown[]) => unknown };
    const original = socket._writeGeneric;
    let writes = 0;
    socket._writeGeneric = function (this: unknown, ...args: unknown[]) {
      writes++;
      return original.apply(this, args);
    };
    try {
      await act();
    } finally {
      socket._writeGeneric = original;
    }
    return writes;
  }

  it('sends the commands issued in one turn in one write, and answers each', async () => {
    const held = await writesDuring(() => {
      const replies = ['a', 'b', 'c'].map((value) => {
        holdWritesForThisTurn(redis);
        return redis.echo(value);
      });
      return Promise.all(replies).then((values) => expect(values).toEqual(['a', 'b', 'c']));
    });
    expect(held).toBe(1);
    const plain = await writesDuring(() => Promise.all(['a', 'b', 'c'].map((value) => redis.echo(value))));
    expect(plain).toBe(3);
  });

  it('holds writes no longer than the turn', async () => {
    holdWritesForThisTurn(redis);
    const first = redis.echo('first');
    expect(redis.stream.writableCorked).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(redis.stream.writableCorked).toBe(0);
    expect(await first).toBe('first');
  });
});

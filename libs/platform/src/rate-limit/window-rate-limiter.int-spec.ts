import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { WindowRateLimiter } from './window-rate-limiter';

describe(`${WindowRateLimiter.name} (Redis)`, () => {
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `aas-test-limiter-${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('take grants a whole batch within the allowance, then the part that is left, then nothing', async () => {
    const sut = new WindowRateLimiter(redis, `${prefix}:take`, 10, 60);
    expect((await sut.take('user', 4)).granted).toBe(4);
    expect(await sut.left('user')).toMatchObject({ remaining: 6 });
    expect((await sut.take('user', 8)).granted).toBe(6);
    const after = await sut.take('user', 3);
    expect(after.granted).toBe(0);
    expect(after.resetSeconds).toBeGreaterThan(0);
    expect((await sut.consume('user')).allowed).toBe(false);
    // Another key's allowance is its own.
    expect((await sut.take('other', 10)).granted).toBe(10);
  });

  it('giveBack returns points, and left counts a key never seen as whole', async () => {
    const sut = new WindowRateLimiter(redis, `${prefix}:back`, 5, 60);
    expect(await sut.left('user')).toMatchObject({ remaining: 5 });
    await sut.take('user', 5);
    await sut.giveBack('user', 2);
    expect(await sut.left('user')).toMatchObject({ remaining: 2 });
    expect((await sut.take('user', 2)).granted).toBe(2);
  });
});

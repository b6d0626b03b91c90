/** @run-alone it bounds the spacing of turns taken by calls made at once: a test file beside it spreads those calls out. */
import { RedisKeyspace } from '@aas/platform';
import { TooManyRequestsError } from '@aas/problem-details';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { isolatedInfra } from '../../../../test/support/isolated-infra';
import { fakeWebhooksConfig } from '../config/webhooks-config.fake';
import { PACING_HORIZON_MS, RedeliveryPacing } from './redelivery-pacing';

const infra = isolatedInfra();

/** Pacings as separate webhook-delivery processes would have them: each its own Redis connection, one keyspace. */
describe(RedeliveryPacing.name, () => {
  const connections: Redis[] = [];
  const pacing = () => {
    const redis = new Redis(infra.redisUrl);
    connections.push(redis);
    return new RedeliveryPacing(redis, new RedisKeyspace(infra.redisPrefix), fakeWebhooksConfig({ WEBHOOK_REDELIVER_SINCE_PER_SECOND: 20 }));
  };
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.quit()));
    await infra.dispose();
  });

  it("gives one user's requests on every replica turns one after another, 50 ms apart, and another user turns of their own", async () => {
    const [a, b] = [pacing(), pacing()];
    const user = randomUUID();
    const reservations = await Promise.all([a.reserve(user, 10), b.reserve(user, 10), a.reserve(user, 10)]);
    const starts = reservations.map((r) => r.firstDelayMs).sort((x, y) => x - y);
    expect(starts[0]).toBeLessThan(50);
    expect(starts[1] - starts[0]).toBeGreaterThanOrEqual(490);
    expect(starts[2] - starts[1]).toBeGreaterThanOrEqual(490);
    expect(reservations.every((r) => r.spacingMs === 50)).toBe(true);
    expect((await a.reserve(randomUUID(), 10)).firstDelayMs).toBeLessThan(50);
  });

  it('gives back the unused end of the last reservation only', async () => {
    const sut = pacing();
    const user = randomUUID();
    const first = await sut.reserve(user, 100);
    await sut.release(user, first, 0);
    expect((await sut.reserve(user, 1)).firstDelayMs).toBeLessThan(50);
    const second = await sut.reserve(user, 100);
    await sut.reserve(user, 1);
    await sut.release(user, second, 0);
    expect((await sut.reserve(user, 1)).firstDelayMs).toBeGreaterThan(4_900);
  });

  it('grants as many turns as end within the horizon, then refuses with the seconds until one fits', async () => {
    const sut = pacing();
    const user = randomUUID();
    const fits = PACING_HORIZON_MS / 50;
    expect((await sut.reserve(user, fits - 100)).granted).toBe(fits - 100);
    const partial = await sut.reserve(user, 500);
    expect(partial.granted).toBeGreaterThanOrEqual(99);
    expect(partial.granted).toBeLessThanOrEqual(100);
    const refused = sut.reserve(user, 1);
    await expect(refused).rejects.toBeInstanceOf(TooManyRequestsError);
    await expect(refused).rejects.toMatchObject({ retryAfterSeconds: 1 });
    expect((await sut.reserve(randomUUID(), 1)).firstDelayMs).toBeLessThan(50);
  });
});

import { ConfigService } from '@nestjs/config';
import { RedisKeyspace } from '@aas/platform';
import { TooManyRequestsError } from '@aas/problem-details';
import Redis from 'ioredis';
import { IsolatedInfra, isolatedInfra } from '../../../../test/support/isolated-infra';
import { SchedulerEnv } from '../config/scheduler.env';
import { InboundCallLimits } from './inbound-call-limits';
import { TriggerEntity } from './trigger.entity';
import { triggerRow } from './trigger.store.fake';

/** The inbound allowances on the real Redis, as every scheduler replica counts them. */
describe(InboundCallLimits.name, () => {
  let infra: IsolatedInfra;
  let redis: Redis;
  const limitsWith = (settings: Partial<SchedulerEnv>) => {
    const all = { RATE_LIMIT_WINDOW_SECONDS: 60, RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS: 0, RATE_LIMIT_INBOUND_OWNER_REQUESTS: 0, ...settings };
    const config = { get: (name: keyof typeof all) => all[name] } as unknown as ConfigService<SchedulerEnv, true>;
    return new InboundCallLimits(config, redis, new RedisKeyspace(infra.redisPrefix));
  };
  const hook = (id: string, userId = 'owner-1'): TriggerEntity => triggerRow({ id, userId, agentId: 'agent-1' });
  const charged = (limits: InboundCallLimits, trigger: TriggerEntity) => limits.charge(trigger).then(() => 'ok', (e: unknown) => e);

  beforeAll(() => {
    infra = isolatedInfra();
    redis = new Redis(infra.redisUrl);
  });
  afterAll(async () => {
    redis.disconnect();
    await infra.dispose();
  });

  it('gives each endpoint its allowance, shared by two replicas, then a 429 with Retry-After', async () => {
    const [one, two] = [limitsWith({ RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS: 3 }), limitsWith({ RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS: 3 })];
    expect([await charged(one, hook('e1')), await charged(two, hook('e1')), await charged(one, hook('e1'))]).toEqual(['ok', 'ok', 'ok']);
    const over = await charged(two, hook('e1'));
    expect(over).toBeInstanceOf(TooManyRequestsError);
    expect((over as TooManyRequestsError).retryAfterSeconds).toBeGreaterThan(0);
    expect(await charged(one, hook('e2'))).toBe('ok');
  });

  it("counts all of an owner's endpoints together, and other owners apart", async () => {
    const limits = limitsWith({ RATE_LIMIT_INBOUND_OWNER_REQUESTS: 2 });
    expect([await charged(limits, hook('a', 'owner-2')), await charged(limits, hook('b', 'owner-2'))]).toEqual(['ok', 'ok']);
    expect(await charged(limits, hook('c', 'owner-2'))).toBeInstanceOf(TooManyRequestsError);
    expect(await charged(limits, hook('a', 'owner-3'))).toBe('ok');
  });

  it('charges nothing when both are off', async () => {
    const limits = limitsWith({});
    for (let i = 0; i < 5; i++) expect(await charged(limits, hook('off'))).toBe('ok');
  });
});

import { ServiceClient } from '@aas/platform';
import Redis from 'ioredis';
import { GatewayHealth } from './gateway-health';

function makeSut(options: { redisUp?: boolean; downService?: string } = {}) {
  const redis = { ping: jest.fn(async () => (options.redisUp === false ? Promise.reject(new Error('connection refused')) : 'PONG')) };
  const services = {
    request: jest.fn(async (pattern: string) => {
      if (options.downService && pattern.startsWith(options.downService)) throw new Error('no answer');
      return { ready: true };
    }),
  };
  const sut = new GatewayHealth(redis as unknown as Redis, services as unknown as ServiceClient);
  return { sut, redis, services };
}

describe(GatewayHealth.name, () => {
  it('is ready on its own: Redis answers, and no service behind it is asked', async () => {
    const { sut, services } = makeSut({ downService: 'agents' });
    expect(await sut.readiness()).toEqual({ ready: true, checks: { process: 'up', redis: 'up' } });
    expect(services.request).not.toHaveBeenCalled();
  });

  it('is not ready when Redis does not answer', async () => {
    const { sut } = makeSut({ redisUp: false });
    const report = await sut.readiness();
    expect(report.ready).toBe(false);
    expect(report.checks.redis).toContain('connection refused');
  });

  it('is not ready once shutting down, without asking Redis', async () => {
    const { sut, redis } = makeSut();
    sut.beforeApplicationShutdown();
    expect(await sut.readiness()).toEqual({ ready: false, checks: { process: 'down: shutting down' } });
    expect(redis.ping).not.toHaveBeenCalled();
  });

  it('asks Redis once per second however often it is asked', async () => {
    const { sut, redis } = makeSut();
    await Promise.all(Array.from({ length: 20 }, () => sut.readiness()));
    expect(redis.ping).toHaveBeenCalledTimes(1);
  });

  it('reports every service in the deep status, naming the one that is down', async () => {
    const { sut } = makeSut({ downService: 'scheduler' });
    const report = await sut.deepStatus();
    expect(report.ready).toBe(false);
    expect(Object.keys(report.checks).sort()).toEqual(['agents-service', 'redis', 'runs-service', 'scheduler-service', 'webhook-delivery']);
    expect(report.checks['scheduler-service']).toMatch(/^down/);
    expect(report.checks['agents-service']).toBe('up');
  });
});

import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { BACKEND_HEALTH_PATTERNS } from '@aas/contracts';
import { HealthCheck, REDIS, ReadinessReport, ServiceClient, redisCheck, runHealthChecks } from '@aas/platform';
import Redis from 'ioredis';
import { CachedResult } from './cached-result';

/** How long one answer of /readyz and of /readyz/deep is reused. */
export const HEALTH_CACHE_MS = 1000;
/** /readyz gives Redis this long: the probe's own timeout is longer. */
const READINESS_TIMEOUT_MS = 1000;
/** /readyz/deep gives each dependency this long. */
const DEEP_TIMEOUT_MS = 3000;

/**
 * The gateway's health. Readiness (/readyz, the readinessProbe) is its own: the process is up
 * and not shutting down, and Redis, which every request needs (rate limits, revocations, the
 * transport), answers. It deliberately leaves out the services behind it, so that one service
 * being down no longer takes every gateway out of its Service: clients get that service's 503
 * Problem Details instead of connection errors. The deep status (/readyz/deep) asks Redis and
 * every service (each checking its PostgreSQL), for operators and monitoring. Both are cached
 * for HEALTH_CACHE_MS, so any rate of probing costs one check per second per replica.
 */
@Injectable()
export class GatewayHealth implements BeforeApplicationShutdown {
  private shuttingDown = false;
  private readonly own: CachedResult<ReadinessReport>;
  private readonly deep: CachedResult<ReadinessReport>;

  constructor(@Inject(REDIS) redis: Redis, services: ServiceClient) {
    const redisHealth = redisCheck(redis);
    const serviceChecks: HealthCheck[] = Object.entries(BACKEND_HEALTH_PATTERNS).map(([name, pattern]) => ({
      name,
      check: async () => void (await services.request(pattern, {})),
    }));
    this.own = new CachedResult(HEALTH_CACHE_MS, () => runHealthChecks([redisHealth], READINESS_TIMEOUT_MS));
    this.deep = new CachedResult(HEALTH_CACHE_MS, () => runHealthChecks([redisHealth, ...serviceChecks], DEEP_TIMEOUT_MS));
  }

  /** From here on /readyz answers 503, while requests in flight are still answered. */
  beforeApplicationShutdown(): void {
    this.shuttingDown = true;
  }

  async readiness(): Promise<ReadinessReport> {
    if (this.shuttingDown) return { ready: false, checks: { process: 'down: shutting down' } };
    const report = await this.own.get();
    return { ready: report.ready, checks: { process: 'up', ...report.checks } };
  }

  deepStatus(): Promise<ReadinessReport> {
    return this.deep.get();
  }
}

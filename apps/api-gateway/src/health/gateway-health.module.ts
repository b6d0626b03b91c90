import { Module } from '@nestjs/common';
import { BACKEND_HEALTH_PATTERNS } from '@aas/contracts';
import { HEALTH_CHECKS, HealthCheck, HealthController, REDIS, redisCheck } from '@aas/platform';
import Redis from 'ioredis';
import { ServiceClient } from '@aas/platform';

/** The gateway is ready when Redis answers and every service behind it (each checking its PostgreSQL) answers. */
@Module({
  controllers: [HealthController],
  providers: [
    {
      provide: HEALTH_CHECKS,
      inject: [REDIS, ServiceClient],
      useFactory: (redis: Redis, services: ServiceClient): HealthCheck[] => [
        redisCheck(redis),
        ...Object.entries(BACKEND_HEALTH_PATTERNS).map(([name, pattern]) => ({
          name,
          check: async () => void (await services.request(pattern, {})),
        })),
      ],
    },
  ],
})
export class GatewayHealthModule {}

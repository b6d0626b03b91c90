import { Controller, DynamicModule, Inject, Module, Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { getDataSourceToken } from '@nestjs/typeorm';
import { ServiceUnavailableError } from '@aas/problem-details';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { REDIS } from '../redis/redis.module';
import { postgresCheck, redisCheck } from './dependency-checks';
import { HEALTH_CHECKS, HealthCheck, ReadinessReport, runHealthChecks } from './health-check';
import { HealthController } from './health.controller';

function healthHandlers(pattern: string): Type {
  @Controller()
  class HealthHandlers {
    constructor(@Inject(HEALTH_CHECKS) private readonly checks: HealthCheck[]) {}

    /** Asked by the gateway's /readyz: answers only when this service's own dependencies are up. */
    @MessagePattern(pattern)
    async check(): Promise<ReadinessReport> {
      const report = await runHealthChecks(this.checks);
      if (!report.ready) throw new ServiceUnavailableError(JSON.stringify(report.checks));
      return report;
    }
  }
  return HealthHandlers;
}

/** /healthz, /readyz and the health message of a service that owns a schema. */
@Module({})
export class ServiceHealthModule {
  static forService(pattern: string): DynamicModule {
    return {
      module: ServiceHealthModule,
      controllers: [HealthController, healthHandlers(pattern)],
      providers: [
        {
          provide: HEALTH_CHECKS,
          inject: [getDataSourceToken(), REDIS],
          useFactory: (dataSource: DataSource, redis: Redis): HealthCheck[] => [postgresCheck(dataSource), redisCheck(redis)],
        },
      ],
    };
  }
}

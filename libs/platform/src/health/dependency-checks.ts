import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { HealthCheck } from './health-check';

export function postgresCheck(dataSource: DataSource): HealthCheck {
  return { name: 'postgres', check: async () => void (await dataSource.query('SELECT 1')) };
}

export function redisCheck(redis: Redis): HealthCheck {
  return {
    name: 'redis',
    check: async () => {
      if ((await redis.ping()) !== 'PONG') throw new Error('unexpected PING reply');
    },
  };
}

import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import Redis from 'ioredis';
import { CommonEnv } from '../config/common.env';
import { RedisKeyspace } from './redis-keyspace';

export const REDIS = Symbol('REDIS');

@Injectable()
class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}

/** One shared command connection (not for blocking reads) and the keyspace of this install. */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [ConfigService],
      useFactory: (config: ConfigService<CommonEnv, true>) => {
        const redis = new Redis(config.get('REDIS_URL', { infer: true }), { maxRetriesPerRequest: 2 });
        redis.on('error', () => undefined);
        return redis;
      },
    },
    {
      provide: RedisKeyspace,
      inject: [ConfigService],
      useFactory: (config: ConfigService<CommonEnv, true>) => new RedisKeyspace(config.get('REDIS_PREFIX', { infer: true })),
    },
    RedisCloser,
  ],
  exports: [REDIS, RedisKeyspace],
})
export class RedisModule {}

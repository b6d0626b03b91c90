import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { RedisStreamsClient } from '@aas/transport';
import { CommonEnv } from '../config/common.env';
import { STREAMS_CLIENT, ServiceClient } from './service-client';

/** A client for request/response to other services over the Redis Streams transport. */
@Global()
@Module({
  providers: [
    {
      provide: STREAMS_CLIENT,
      inject: [ConfigService],
      useFactory: (config: ConfigService<CommonEnv, true>) =>
        new RedisStreamsClient({
          url: config.get('REDIS_URL', { infer: true }),
          prefix: config.get('REDIS_PREFIX', { infer: true }),
          timeoutMs: config.get('RPC_TIMEOUT_MS', { infer: true }),
        }),
    },
    ServiceClient,
  ],
  exports: [ServiceClient],
})
export class ServiceClientModule {}

import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { RedisStreamsClient } from '@aas/transport';
import { GatewayEnv } from '../config/gateway.env';
import { STREAMS_CLIENT, ServiceClient } from './service-client';

@Global()
@Module({
  providers: [
    {
      provide: STREAMS_CLIENT,
      inject: [ConfigService],
      useFactory: (config: ConfigService<GatewayEnv, true>) =>
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

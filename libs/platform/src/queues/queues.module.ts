import { BullModule } from '@nestjs/bullmq';
import { DynamicModule } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { CommonEnv } from '../config/common.env';

/** BullMQ on REDIS_URL, every queue under REDIS_PREFIX so installs sharing a Redis stay apart. */
export function queuesModule(): DynamicModule {
  return BullModule.forRootAsync({
    inject: [ConfigService],
    useFactory: (config: ConfigService<CommonEnv, true>) => ({
      // Options, not a connection: BullMQ then owns its connections and closes them on shutdown.
      connection: { url: config.get('REDIS_URL', { infer: true }), maxRetriesPerRequest: null },
      prefix: config.get('REDIS_PREFIX', { infer: true }),
    }),
  });
}

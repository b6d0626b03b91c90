import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DiscoveryModule } from '@nestjs/core';
import { CommonEnv } from '../config/common.env';
import { AppQueueWorkers } from './app-queue-workers';
import { QueueMetrics } from './queue-metrics';
import { QueueWorkersDrain } from './queue-workers.drain';

@Module({})
class QueuesModule {}

/**
 * BullMQ on REDIS_URL, every queue under REDIS_PREFIX so installs sharing a
 * Redis stay apart; the app's workers drained on shutdown and measured.
 */
export function queuesModule(): DynamicModule {
  return {
    module: QueuesModule,
    global: true,
    imports: [
      DiscoveryModule,
      BullModule.forRootAsync({
        inject: [ConfigService],
        useFactory: (config: ConfigService<CommonEnv, true>) => ({
          // Options, not a connection: BullMQ then owns its connections and closes them on shutdown.
          connection: { url: config.get('REDIS_URL', { infer: true }), maxRetriesPerRequest: null },
          prefix: config.get('REDIS_PREFIX', { infer: true }),
        }),
      }),
    ],
    providers: [AppQueueWorkers, QueueWorkersDrain, QueueMetrics],
    exports: [AppQueueWorkers, QueueWorkersDrain],
  };
}

import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AuthRedisKeys } from '@aas/contracts';
import { CommonEnv, RedisKeyspace } from '@aas/platform';
import Redis from 'ioredis';
import { RevocationState } from './revocation-state';

/** Keeps RevocationState in step with the revocations agents-service announces on Redis pub/sub. */
@Injectable()
export class RevocationFeed extends RevocationState implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RevocationFeed.name);
  private readonly subscriber: Redis;
  private readonly channel: string;

  constructor(config: ConfigService<CommonEnv, true>, keyspace: RedisKeyspace) {
    super();
    this.channel = keyspace.key(...AuthRedisKeys.revocations);
    // Subscribed by hand on every connect, so the state says "listening" only once Redis confirmed it.
    this.subscriber = new Redis(config.get('REDIS_URL', { infer: true }), {
      autoResubscribe: false,
      lazyConnect: true,
      connectionName: keyspace.key('gateway', 'revocation-feed'),
    });
  }

  onModuleInit(): void {
    this.subscriber.on('ready', () => void this.subscribe());
    this.subscriber.on('close', () => this.unsubscribed());
    this.subscriber.on('error', (error) => this.logger.warn(`revocation feed: ${error.message}`));
    this.subscriber.on('message', (_channel: string, keyId: string) => this.revoked(keyId));
    void this.subscriber.connect().catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    this.unsubscribed();
    await this.subscriber.quit().catch(() => undefined);
  }

  private async subscribe(): Promise<void> {
    try {
      await this.subscriber.subscribe(this.channel);
      this.subscribed();
    } catch (error) {
      this.logger.warn(`revocation feed: could not subscribe: ${(error as Error).message}`);
    }
  }
}

import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AuthRedisKeys } from '@aas/contracts';
import { CommonEnv, RedisKeyspace } from '@aas/platform';
import Redis from 'ioredis';
import { RevocationState } from './revocation-state';

/** Keeps RevocationState in step with what agents-service announces on Redis pub/sub. */
@Injectable()
export class RevocationFeed extends RevocationState implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RevocationFeed.name);
  private readonly subscriber: Redis;
  private readonly channels: { keys: string; sessions: string; agents: string };

  constructor(config: ConfigService<CommonEnv, true>, keyspace: RedisKeyspace) {
    super();
    this.channels = {
      keys: keyspace.key(...AuthRedisKeys.revocations),
      sessions: keyspace.key(...AuthRedisKeys.sessionsEnded),
      agents: keyspace.key(...AuthRedisKeys.agentsDeleted),
    };
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
    this.subscriber.on('message', (channel: string, message: string) => this.onAnnouncement(channel, message));
    void this.subscriber.connect().catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    this.unsubscribed();
    await this.subscriber.quit().catch(() => undefined);
  }

  private onAnnouncement(channel: string, message: string): void {
    if (channel === this.channels.keys) this.revoked(message);
    else if (channel === this.channels.sessions) this.sessionEnded(message);
    else if (channel === this.channels.agents) {
      const [userId, agentId] = message.split(':');
      if (userId && agentId) this.agentDeleted(userId, agentId);
    }
  }

  private async subscribe(): Promise<void> {
    try {
      await this.subscriber.subscribe(this.channels.keys, this.channels.sessions, this.channels.agents);
      this.subscribed();
    } catch (error) {
      this.logger.warn(`revocation feed: could not subscribe: ${(error as Error).message}`);
    }
  }
}

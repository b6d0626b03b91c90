import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { REDIS, RedisKeyspace } from '@aas/platform';
import Redis from 'ioredis';

/**
 * Carries "stop this run" to whichever replica executes it. The database is
 * the source of truth (the cancel has already finished the run there); this
 * fan-out only makes the executing worker abort its runtime request at once.
 */
@Injectable()
export class CancelSignals implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(CancelSignals.name);
  private readonly running = new Map<string, AbortController>();
  private subscriber?: Redis;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keyspace: RedisKeyspace,
  ) {}

  private get channel(): string {
    return this.keyspace.key('runs', 'cancel');
  }

  async onModuleInit(): Promise<void> {
    this.subscriber = this.redis.duplicate();
    this.subscriber.on('error', (error) => this.logger.warn(`cancel channel: ${error.message}`));
    this.subscriber.on('message', (_channel, runId: string) => this.running.get(runId)?.abort('cancelled'));
    await this.subscriber.subscribe(this.channel);
  }

  async onApplicationShutdown(): Promise<void> {
    this.subscriber?.disconnect();
  }

  /** The release forgets only its own controller: a run's continuation may register before the dispatch it follows has released. */
  register(runId: string, controller: AbortController): () => void {
    this.running.set(runId, controller);
    return () => {
      if (this.running.get(runId) === controller) this.running.delete(runId);
    };
  }

  /** Aborts every run this process executes (shutdown past its drain deadline). */
  abortAll(reason: string): void {
    for (const controller of this.running.values()) controller.abort(reason);
  }

  async signal(runId: string): Promise<void> {
    this.running.get(runId)?.abort('cancelled');
    await this.redis.publish(this.channel, runId);
  }
}

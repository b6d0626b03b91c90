import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { RunEventPush, RunEventPushKeys } from '@aas/contracts';
import { CommonEnv, RedisKeyspace } from '@aas/platform';
import { ServiceUnavailableError } from '@aas/problem-details';
import Redis from 'ioredis';

/** What receives the pushes of a run's channel. */
export interface PushListener {
  pushed(push: RunEventPush): void;
}

const SUBSCRIBE_TIMEOUT_MS = 5000;

/**
 * The gateway's one Redis subscription for run events: a run's channel is subscribed while at least
 * one stream of this gateway follows it, and each push goes to those streams. Pushes published while
 * the connection is down are lost: once it is back, every channel is subscribed again and `onResync`
 * listeners are told to look for what they missed.
 */
@Injectable()
export class RunEventHub implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RunEventHub.name);
  private readonly subscriber: Redis;
  private readonly listeners = new Map<string, Set<PushListener>>();
  /** Each followed run's subscription, settled once Redis confirmed it. */
  private readonly confirmations = new Map<string, Promise<void>>();
  private readonly resyncListeners: Array<() => void> = [];
  private readonly prefix: string;
  private connectedOnce = false;

  constructor(config: ConfigService<CommonEnv, true>, keyspace: RedisKeyspace) {
    this.prefix = keyspace.key(...RunEventPushKeys.channel(''));
    this.subscriber = new Redis(config.get('REDIS_URL', { infer: true }), {
      autoResubscribe: false,
      lazyConnect: true,
      connectionName: keyspace.key('gateway', 'run-events'),
    });
  }

  onModuleInit(): void {
    this.subscriber.on('ready', () => void this.resubscribe());
    this.subscriber.on('error', (error) => this.logger.warn(`run event pushes: ${error.message}`));
    this.subscriber.on('message', (channel: string, message: string) => this.deliver(channel, message));
    void this.subscriber.connect().catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber.quit().catch(() => undefined);
  }

  onResync(listener: () => void): void {
    this.resyncListeners.push(listener);
  }

  /** Resolves once Redis has confirmed the subscription: every push after that reaches `listener`. */
  async join(runId: string, listener: PushListener): Promise<void> {
    const listening = this.listeners.get(runId);
    if (listening) listening.add(listener);
    else this.listeners.set(runId, new Set([listener]));
    let confirmed = this.confirmations.get(runId);
    if (!confirmed) {
      confirmed = this.subscribe(runId);
      this.confirmations.set(runId, confirmed);
    }
    try {
      await confirmed;
    } catch (error) {
      this.confirmations.delete(runId);
      this.leave(runId, listener);
      throw error;
    }
  }

  private async subscribe(runId: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ServiceUnavailableError('Run events cannot be followed right now (Redis); try again')), SUBSCRIBE_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.subscriber.subscribe(this.prefix + runId), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  leave(runId: string, listener: PushListener): void {
    const listening = this.listeners.get(runId);
    if (!listening?.delete(listener) || listening.size > 0) return;
    this.listeners.delete(runId);
    this.confirmations.delete(runId);
    this.subscriber.unsubscribe(this.prefix + runId).catch(() => undefined);
  }

  /** Channels this gateway follows (for tests and metrics). */
  get following(): number {
    return this.listeners.size;
  }

  private deliver(channel: string, message: string): void {
    const listening = this.listeners.get(channel.slice(this.prefix.length));
    if (!listening) return;
    let push: RunEventPush;
    try {
      push = JSON.parse(message) as RunEventPush;
    } catch {
      this.logger.warn(`run event pushes: a message that is not JSON on ${channel}`);
      return;
    }
    for (const listener of [...listening]) listener.pushed(push);
  }

  private async resubscribe(): Promise<void> {
    const channels = [...this.listeners.keys()].map((runId) => this.prefix + runId);
    try {
      for (let i = 0; i < channels.length; i += 1000) await this.subscriber.subscribe(...channels.slice(i, i + 1000));
    } catch (error) {
      this.logger.warn(`run event pushes: could not subscribe again: ${(error as Error).message}`);
      return;
    }
    // The first connection missed nothing; after a reconnection, pushes may have been lost meanwhile.
    if (this.connectedOnce) for (const listener of this.resyncListeners) listener();
    this.connectedOnce = true;
  }
}

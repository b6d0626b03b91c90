import { Inject, Injectable, Logger } from '@nestjs/common';
import { RUN_EVENT_PUSH_MAX_BYTES, RunEventItem, RunEventPush, RunEventPushKeys } from '@aas/contracts';
import { REDIS, RedisKeyspace } from '@aas/platform';
import Redis from 'ioredis';

/**
 * Pushes a run's events to the gateways that stream them, on the run's pub/sub channel, after the
 * event is committed (a stream never shows an event that could still roll back). Publishing costs
 * one Redis command even when nobody listens. A lost push is not fatal: the gateway sees the gap in
 * the indices, or finds it in its periodic check, and reads the events from the database.
 */
@Injectable()
export class RunEventChannel {
  private readonly logger = new Logger(RunEventChannel.name);

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keyspace: RedisKeyspace,
  ) {}

  /** Not awaited by the recorder: commands on one connection keep their order, so pushes of a run arrive in order. */
  recorded(runId: string, item: RunEventItem, finished: boolean): void {
    const body = JSON.stringify(item);
    const push: RunEventPush =
      Buffer.byteLength(body, 'utf8') <= RUN_EVENT_PUSH_MAX_BYTES ? { index: item.event_index, item, finished } : { index: item.event_index, finished };
    this.publish(runId, push);
  }

  gone(runId: string): void {
    this.publish(runId, { gone: true });
  }

  private publish(runId: string, push: RunEventPush): void {
    this.redis
      .publish(this.keyspace.key(...RunEventPushKeys.channel(runId)), JSON.stringify(push))
      .catch((error: Error) => this.logger.warn(`could not push an event of run ${runId}: ${error.message}`));
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { AuthRedisKeys } from '@aas/contracts';
import { REDIS, RedisKeyspace } from '@aas/platform';
import Redis from 'ioredis';

/**
 * Tells every gateway, on Redis pub/sub, of console sessions that ended and agents that were
 * deleted, so they end the event streams opened with or on them. Sent after the change is
 * committed and before it is answered; a gateway that misses one (its subscription was down)
 * checks its open streams again with the services when it re-subscribes.
 */
@Injectable()
export class AccessAnnouncer {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keyspace: RedisKeyspace,
  ) {}

  async sessionsEnded(sessionIds: string[]): Promise<void> {
    const channel = this.keyspace.key(...AuthRedisKeys.sessionsEnded);
    for (const id of sessionIds) await this.redis.publish(channel, id);
  }

  async agentsDeleted(userId: string, agentIds: string[]): Promise<void> {
    const channel = this.keyspace.key(...AuthRedisKeys.agentsDeleted);
    for (const id of agentIds) await this.redis.publish(channel, `${userId}:${id}`);
  }
}

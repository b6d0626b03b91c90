import { Inject, Injectable, Logger } from '@nestjs/common';
import { REDIS, RedisKeyspace } from '@aas/platform';
import Redis from 'ioredis';
import { createHash } from 'node:crypto';

/** How long a URL that passed verification stays known: as long as a delivery id keys its run. */
const KEPT_SECONDS = 24 * 3600;
/** URLs this gateway remembers having recorded, so that busy endpoints cost Redis one write a day per gateway. */
const LOCAL_MAX = 10_000;

/**
 * Inbound URLs (trigger id and token) whose calls passed scheduler-service's token and signature checks
 * in the last 24 hours, shared by every gateway through Redis under a digest (never the token). An
 * address over its allowance of failures still reaches these (RequestRateLimits), so one tenant who makes
 * calls from a shared sender address fail cannot cut that address off from everybody's endpoints.
 */
@Injectable()
export class VerifiedHookUrls {
  private readonly logger = new Logger(VerifiedHookUrls.name);
  private readonly recorded = new Map<string, number>();

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keyspace: RedisKeyspace,
  ) {}

  /** The digest a URL is known by. */
  static digestOf(triggerId: string, token: string): string {
    return createHash('sha256').update(`${triggerId}/${token}`).digest('base64url');
  }

  async has(digest: string): Promise<boolean> {
    if (this.recentlyRecorded(digest)) return true;
    return (await this.redis.exists(this.key(digest))) === 1;
  }

  /** Records a URL whose call passed verification; never delays or fails the call's answer. */
  remember(digest: string): void {
    if (this.recentlyRecorded(digest)) return;
    if (this.recorded.size >= LOCAL_MAX) this.recorded.delete(this.recorded.keys().next().value!);
    this.recorded.set(digest, Date.now() + KEPT_SECONDS * 1000);
    this.redis.set(this.key(digest), '1', 'EX', KEPT_SECONDS).catch((error: unknown) => {
      this.recorded.delete(digest);
      this.logger.warn({ err: error }, 'could not record a verified inbound URL; its calls from an address over its allowance may be refused');
    });
  }

  private recentlyRecorded(digest: string): boolean {
    const until = this.recorded.get(digest);
    return until !== undefined && until > Date.now();
  }

  private key(digest: string): string {
    return this.keyspace.key('gateway', 'inbound', 'verified', digest);
  }
}

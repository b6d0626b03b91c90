/** Builds every Redis key of this install under REDIS_PREFIX, so installs can share one Redis. */
export class RedisKeyspace {
  constructor(readonly prefix: string) {}

  key(...parts: string[]): string {
    return [this.prefix, ...parts].join(':');
  }
}

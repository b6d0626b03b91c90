/**
 * The result of `load`, computed at most once per `ttlMs`: callers within that time (also those
 * arriving while it is being computed) share one computation, so a probe flood costs one check
 * per period whatever its rate.
 */
export class CachedResult<T> {
  private current?: { startedAt: number; result: Promise<T> };

  constructor(
    private readonly ttlMs: number,
    private readonly load: () => Promise<T>,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<T> {
    const now = this.now();
    if (!this.current || now - this.current.startedAt >= this.ttlMs) this.current = { startedAt: now, result: this.load() };
    return this.current.result;
  }
}

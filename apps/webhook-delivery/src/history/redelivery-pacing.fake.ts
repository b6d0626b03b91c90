import { TooManyRequestsError } from '@aas/problem-details';
import { PACING_HORIZON_MS, PacedSends, RedeliveryPacing } from './redelivery-pacing';

/** The pacing in memory, on the process's clock (so on jest's fake timers); left out of the build. */
export class FakeRedeliveryPacing implements Pick<RedeliveryPacing, 'spacingMs' | 'reserve' | 'release'> {
  private readonly until = new Map<string, number>();

  constructor(readonly spacingMs = 50) {}

  async reserve(userId: string, n: number): Promise<PacedSends> {
    const now = Date.now();
    const from = Math.max(now, this.until.get(userId) ?? 0);
    const granted = Math.min(n, Math.floor((now + PACING_HORIZON_MS - from) / this.spacingMs));
    if (granted <= 0) throw new TooManyRequestsError('no room before the horizon', Math.ceil((from + this.spacingMs - PACING_HORIZON_MS - now) / 1000));
    const end = from + granted * this.spacingMs;
    this.until.set(userId, end);
    return { firstDelayMs: from - now, spacingMs: this.spacingMs, granted, end };
  }

  async release(userId: string, sends: PacedSends, used: number): Promise<void> {
    if (this.until.get(userId) === sends.end) this.until.set(userId, sends.end - (sends.granted - used) * this.spacingMs);
  }
}

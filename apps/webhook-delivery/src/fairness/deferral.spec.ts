import { BUSY_FIRST_WAIT_MS, BUSY_MAX_WAIT_MS, DeferralContext, SLOW_TURNOVER_MAX_MS, busyWaitMs, deferralOf, giveUpAt } from './deferral';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const HOUR = 3_600_000;
const context = (over: Partial<DeferralContext> = {}): DeferralContext => ({
  now: NOW,
  deferralsBefore: 0,
  giveUpAt: NOW + HOUR,
  random: () => 0,
  ...over,
});

describe(deferralOf.name, () => {
  it('holds a delivery of an open circuit until the circuit lets one through, shown as its next attempt', () => {
    expect(deferralOf({ kind: 'circuit-open', waitMs: 60_000 }, context())).toEqual({
      kind: 'wait',
      reason: 'circuit_open',
      until: NOW + 60_000,
      shown: true,
    });
  });

  it('spreads the deliveries of one circuit over up to a fifth more than its wait, never less', () => {
    const late = deferralOf({ kind: 'circuit-open', waitMs: 60_000 }, context({ random: () => 0.999_999 }));
    expect(late).toMatchObject({ kind: 'wait', until: NOW + 72_000 });
    for (const r of [0, 0.25, 0.5, 0.75]) {
      const wait = deferralOf({ kind: 'circuit-open', waitMs: 60_000 }, context({ random: () => r }));
      expect(wait.kind === 'wait' && wait.until).toBeGreaterThanOrEqual(NOW + 60_000);
    }
  });

  it('holds a delivery while its half-open circuit probe is out, until the probe is over', () => {
    expect(deferralOf({ kind: 'probe-in-flight', waitMs: 20_000 }, context())).toEqual({
      kind: 'wait',
      reason: 'probe_in_flight',
      until: NOW + 20_000,
      shown: true,
    });
  });

  it('gives a delivery up once its circuit holds it past the retry span, not before', () => {
    const due = context({ giveUpAt: NOW });
    expect(deferralOf({ kind: 'circuit-open', waitMs: 60_000 }, due)).toEqual({ kind: 'give-up', reason: 'circuit_open' });
    expect(deferralOf({ kind: 'probe-in-flight', waitMs: 1_000 }, due)).toEqual({ kind: 'give-up', reason: 'probe_in_flight' });
    expect(deferralOf({ kind: 'circuit-open', waitMs: 60_000 }, context({ giveUpAt: NOW + 1 })).kind).toBe('wait');
  });

  it('never gives up a delivery that only waits for a slot, and does not show that short wait', () => {
    for (const kind of ['endpoint-busy', 'user-busy'] as const) {
      const deferral = deferralOf({ kind, heldMs: 20 }, context({ giveUpAt: NOW - HOUR, random: () => 1 }));
      expect(deferral).toEqual({ kind: 'wait', reason: kind.replace('-', '_'), until: NOW + BUSY_FIRST_WAIT_MS, shown: false });
    }
  });
});

describe(busyWaitMs.name, () => {
  it('doubles with each deferral from 250 ms, and stops growing at 8 s, while the slots turn over fast', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 30].map((n) => busyWaitMs(n, 30, () => 1))).toEqual([250, 500, 1_000, 2_000, 4_000, 8_000, 8_000, BUSY_MAX_WAIT_MS]);
  });

  it('waits about a turnover of slots held long (a receiver that hangs), from the first deferral', () => {
    expect(busyWaitMs(0, 7_500, () => 1)).toBe(15_000);
    expect(busyWaitMs(6, 7_500, () => 1)).toBe(15_000);
    expect(busyWaitMs(0, 3_600_000, () => 1)).toBe(SLOW_TURNOVER_MAX_MS);
  });

  it('is jittered between half and all of its step', () => {
    expect(busyWaitMs(2, 0, () => 0)).toBe(500);
    expect(busyWaitMs(2, 0, () => 0.5)).toBe(750);
    expect(busyWaitMs(0, 7_500, () => 0)).toBe(7_500);
  });

  it('takes a count below zero (a redelivery job, a miscount) as the first deferral', () => {
    expect(busyWaitMs(-3, 0, () => 1)).toBe(BUSY_FIRST_WAIT_MS);
  });
});

describe(giveUpAt.name, () => {
  /** WEBHOOK_RETRY_DELAYS' default, 5s,5m,30m,2h,5h,10h,10h. */
  const DEFAULT_RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

  it('is the retry schedule span after the delivery became pending, whatever attempts it had', () => {
    const since = new Date(NOW);
    expect(giveUpAt(since, DEFAULT_RETRY_DELAYS_MS) - NOW).toBe(27 * HOUR + 35 * 60_000 + 5_000);
    expect(giveUpAt(since, [1_000, 2_000])).toBe(NOW + 3_000);
  });

  it('is the moment it became pending when there are no retries: an open circuit then fails it at once', () => {
    expect(giveUpAt(new Date(NOW), [])).toBe(NOW);
  });
});

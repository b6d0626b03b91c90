/** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: about 27.6 hours of retries after the first attempt. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const JITTER = 0.2;
// A receiver's Retry-After may lengthen a wait, but must not park a delivery for days.
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** Parses a delay list such as `5s,5m,30m,2h`; a blank value means no retries. */
export function parseRetryDelays(text: string): number[] {
  if (text.trim() === '') return [];
  return text.split(',').map((raw, index) => {
    const item = raw.trim();
    const match = /^(\d+)(ms|s|m|h)$/.exec(item);
    if (!match) throw new Error(`retry delay ${index + 1} ("${item}") must be a whole number followed by ms, s, m or h`);
    return Number(match[1]) * UNIT_MS[match[2]];
  });
}

/**
 * The wait before retry `attempt` (1 = the first retry), or null once the delays are used up.
 * Jitter of ±20 % keeps deliveries that failed together (a receiver outage) from retrying in lockstep.
 */
export function nextRetryDelay(attempt: number, delays: readonly number[], random: () => number = Math.random, retryAfterMs?: number): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`a retry attempt counts from 1, got ${attempt}`);
  if (attempt > delays.length) return null;
  const jittered = Math.round(delays[attempt - 1] * (1 - JITTER + 2 * JITTER * random()));
  return retryAfterMs === undefined ? jittered : Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

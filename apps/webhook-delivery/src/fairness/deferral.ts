import type { Admission } from './endpoint-gate';

/** Why a delivery waits without an attempt; the label of aas_webhook_delivery_deferrals_total. */
export type DeferReason = 'circuit_open' | 'probe_in_flight' | 'endpoint_busy' | 'user_busy';

export type Deferral =
  /** Back on the queue at `until` (ms); `shown`: written as the delivery's next_attempt_at. */
  | { kind: 'wait'; reason: DeferReason; until: number; shown: boolean }
  /** Its endpoint kept it waiting past the retry schedule's span: failed, without a further attempt. */
  | { kind: 'give-up'; reason: DeferReason };

export interface DeferralContext {
  now: number;
  /** Times this job was deferred before (an estimate is enough: it only sets the backoff). */
  deferralsBefore: number;
  /** When the delivery is given up rather than deferred by its circuit again (giveUpAt). */
  giveUpAt: number;
  random: () => number;
}

/** A full endpoint or user is tried again after 250 ms, doubling with each deferral up to 8 s… */
export const BUSY_FIRST_WAIT_MS = 250;
export const BUSY_MAX_WAIT_MS = 8_000;
/** …or, when its slots turn over slowly, after about a turnover (twice the median slot's age so far), up to this. */
export const SLOW_TURNOVER_MAX_MS = 60_000;
/**
 * Waits for a circuit are stretched by up to a fifth, never shortened: the deliveries an open circuit
 * held come back spread out, rather than all at the instant it may let one through.
 */
const CIRCUIT_SPREAD = 0.2;

/**
 * What becomes of a delivery the gate did not admit. It takes no attempt and no retry: its attempt
 * count and the delay its next retry will wait are those it had. A circuit's wait is until the circuit
 * lets one through (open) or its probe is over (half-open), and is shown as the delivery's
 * next_attempt_at; a full slot's wait is short, grows with each deferral and is not written anywhere.
 */
export function deferralOf(admission: Exclude<Admission, { kind: 'admitted' }>, context: DeferralContext): Deferral {
  switch (admission.kind) {
    case 'circuit-open':
    case 'probe-in-flight': {
      const reason = admission.kind === 'circuit-open' ? 'circuit_open' : 'probe_in_flight';
      if (context.now >= context.giveUpAt) return { kind: 'give-up', reason };
      const waitMs = Math.ceil(admission.waitMs * (1 + CIRCUIT_SPREAD * context.random()));
      return { kind: 'wait', reason, until: context.now + waitMs, shown: true };
    }
    case 'endpoint-busy':
    case 'user-busy': {
      const reason = admission.kind === 'endpoint-busy' ? 'endpoint_busy' : 'user_busy';
      return { kind: 'wait', reason, until: context.now + busyWaitMs(context.deferralsBefore, admission.heldMs, context.random), shown: false };
    }
  }
}

/**
 * Exponential backoff with jitter (half to all of the step), so deliveries waiting on one slot do not
 * wake together; but never much sooner than the slots turn over. Behind a receiver that hangs, whose
 * slots are each held until the timeout, a waiting delivery is then looked at about once per timeout
 * rather than every 8 s: what keeps a large backlog cheap until the circuit opens.
 */
export function busyWaitMs(deferralsBefore: number, heldMs: number, random: () => number): number {
  const backoff = Math.min(BUSY_MAX_WAIT_MS, BUSY_FIRST_WAIT_MS * 2 ** Math.min(Math.max(deferralsBefore, 0), 16));
  const turnover = Math.min(SLOW_TURNOVER_MAX_MS, 2 * Math.max(heldMs, 0));
  return Math.round(Math.max(backoff, turnover) * (0.5 + 0.5 * random()));
}

/**
 * An open circuit keeps a delivery waiting for at most the span of its retry schedule (the sum of
 * WEBHOOK_RETRY_DELAYS, about 27.6 hours by default) from when it became pending (created, or asked
 * for again by a redelivery): as long as its retries would have lasted, had they been attempted.
 */
export function giveUpAt(pendingSince: Date, retryDelays: readonly number[]): number {
  return pendingSince.getTime() + retryDelays.reduce((sum, delay) => sum + delay, 0);
}

import { SendResult } from '../outbound/webhook-sender';

/** The circuit breaker's settings (WEBHOOK_CIRCUIT_*). */
export interface CircuitSettings {
  /** Failed attempts in a row that open a closed circuit; 0: no circuit breaker. */
  failureThreshold: number;
  cooldownMs: number;
  maxCooldownMs: number;
}

/** What an attempt tells the circuit of its endpoint. */
export type EndpointHealth = 'answered' | 'failed';

/**
 * An endpoint fails when it does not answer (timeout, connection or DNS error, an address the SSRF
 * guard refused) or answers 5xx: what ties up a worker or shows the receiver is down. Any other
 * answer, a 4xx included, shows a receiver that answers, which is all the circuit guards; the
 * delivery's own retries still follow the status.
 */
export function endpointHealthOf(result: SendResult): EndpointHealth {
  return result.statusCode === null || result.statusCode >= 500 ? 'failed' : 'answered';
}

/**
 * The cool-down before the first, second, … probe of a circuit that stays open: the base doubled
 * after each failed probe, up to the cap, which the last entry repeats. Worked out here once so the
 * Lua script that opens circuits only indexes it.
 */
export function cooldownSchedule(settings: Pick<CircuitSettings, 'cooldownMs' | 'maxCooldownMs'>): number[] {
  const { cooldownMs, maxCooldownMs } = settings;
  if (!(cooldownMs > 0) || maxCooldownMs < cooldownMs) throw new RangeError(`cool-downs must be positive and the cap at least the base`);
  const schedule = [cooldownMs];
  while (schedule[schedule.length - 1] < maxCooldownMs) schedule.push(Math.min(schedule[schedule.length - 1] * 2, maxCooldownMs));
  return schedule;
}

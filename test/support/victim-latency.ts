/**
 * What an attack costs a bystander: a victim's calls timed before an attack (the baseline) and
 * while it goes on, in the same test. Every call must answer below 500; the p99 under attack must
 * stay within `factor` times the baseline's. Baselines of a few milliseconds are raised to a floor
 * (FLOOR_MS): every app of a test runs in one process on a shared 2-core machine, where a burst of
 * legitimate work (a wave of runs finishing) costs a bystander 100-300 ms; a wedge costs seconds or 5xx.
 */
export interface VictimSample {
  latencies: number[];
  statuses: number[];
}

const FLOOR_MS = 150;

/** `call` answers its HTTP status, or 0 when no answer came. Calls it from `concurrency` loops until `durationMs` has passed (or `count` calls were made), timing each. */
export async function sampleVictim(
  call: () => Promise<number>,
  options: { durationMs?: number; count?: number; concurrency?: number } = {},
): Promise<VictimSample> {
  const until = Date.now() + (options.durationMs ?? 3_000);
  const max = options.count ?? Number.POSITIVE_INFINITY;
  const sample: VictimSample = { latencies: [], statuses: [] };
  const loop = async (): Promise<void> => {
    while (Date.now() < until && sample.latencies.length < max) {
      const started = performance.now();
      const status = await call();
      sample.latencies.push(performance.now() - started);
      sample.statuses.push(status);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 2 }, loop));
  return sample;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Runs `attack` while the victim is sampled, after a baseline of the same length; returns both, for assertions and messages. */
export async function victimUnderAttack(
  call: () => Promise<number>,
  attack: (signal: AbortSignal) => Promise<unknown>,
  options: { durationMs?: number; concurrency?: number; warmupMs?: number } = {},
): Promise<{ baseline: VictimSample; underAttack: VictimSample; attackResult: unknown }> {
  const durationMs = options.durationMs ?? 3_000;
  await sampleVictim(call, { durationMs: options.warmupMs ?? 500, concurrency: options.concurrency });
  const baseline = await sampleVictim(call, { durationMs, concurrency: options.concurrency });
  const stop = new AbortController();
  const attacking = attack(stop.signal);
  // The attack gets a head start, so the victim is measured while it bites.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const underAttack = await sampleVictim(call, { durationMs, concurrency: options.concurrency });
  stop.abort();
  const attackResult = await attacking;
  return { baseline, underAttack, attackResult };
}

/** Fails naming both p99s when the victim saw a 5xx (or no answer), or its p99 grew beyond `factor` x the baseline. */
export function expectVictimUnharmed(result: { baseline: VictimSample; underAttack: VictimSample }, factor = 2): void {
  const { baseline, underAttack } = result;
  const failures = underAttack.statuses.filter((s) => s >= 500 || s === 0);
  const before = percentile(baseline.latencies, 99);
  const during = percentile(underAttack.latencies, 99);
  const verdict = `victim p99 ${during.toFixed(1)} ms under attack against ${before.toFixed(1)} ms before (${underAttack.latencies.length} and ${baseline.latencies.length} calls), ${failures.length} failed`;
  expect({ verdict, failures: failures.length }).toEqual({ verdict, failures: 0 });
  expect({ verdict, within: during <= factor * Math.max(before, FLOOR_MS) }).toEqual({ verdict, within: true });
}

/** Calls `shoot` `perSecond` times a second, not waiting for answers (as a sender does), until told to stop; counts the statuses. */
export async function attackAtRate(signal: AbortSignal, perSecond: number, shoot: (i: number) => Promise<number>): Promise<Map<number, number>> {
  const started = performance.now();
  const shots: Promise<number>[] = [];
  while (!signal.aborted) {
    shots.push(shoot(shots.length));
    const next = started + (shots.length * 1000) / perSecond;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  const statuses = new Map<number, number>();
  for (const s of await Promise.all(shots)) statuses.set(s, (statuses.get(s) ?? 0) + 1);
  return statuses;
}

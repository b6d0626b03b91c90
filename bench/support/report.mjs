// Each benchmark prints its figures and, when BENCH_JSON names a file, writes them there as
// { name, figures: [{ metric, value, unit, target? }] } for `npm run bench` to collect.
import { writeFileSync } from 'node:fs';

export function report(name, figures) {
  for (const f of figures) {
    const target = f.target ? `   (target ${f.target})` : '';
    process.stdout.write(`${f.metric.padEnd(52)} ${String(f.value).padStart(10)} ${f.unit}${target}\n`);
  }
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ name, figures }, null, 2));
}

/** The p-th percentile (0-100) of sorted numbers. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

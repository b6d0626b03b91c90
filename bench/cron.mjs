// npm run bench:cron — worst-case cost of CronSchedule.next() for expressions that are slow to evaluate:
// sparse ones, ones whose every candidate falls in a DST gap, years far ahead. Prints µs per next() (median and
// worst over the starts, each start's best of several rounds) and the work counted (months searched, timezone
// look-ups). No build needed: the cron
// sources are compiled with @swc/core into a temporary folder.
import { transformFileSync } from '@swc/core';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const source = join(dirname(fileURLToPath(import.meta.url)), '../apps/scheduler-service/src/cron');
const out = mkdtempSync(join(tmpdir(), 'bench-cron-'));
// The evaluator only: not the specs, nor the Nest module (decorators, and nothing the evaluator needs).
for (const file of readdirSync(source).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && !f.endsWith('.module.ts'))) {
  const { code } = transformFileSync(join(source, file), {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  writeFileSync(join(out, file.replace(/\.ts$/, '.js')), code);
}
const { parseCronScheduleAt } = createRequire(import.meta.url)(join(out, 'cron-schedule.js'));
rmSync(out, { recursive: true, force: true });

const CASES = [
  ['0 30 2 ? 3 1#2 2030-2199', 'America/New_York', 'every fire in a DST gap, 97 years of them'],
  ['0 30 2 ? 3 1#2 2030-9999', 'America/New_York', 'the same, years far past the bound'],
  ['* * 2 ? 3 1#2 *', 'America/New_York', 'every second of the gap hour, every year'],
  ['0 0 0 29 2 ? 2096-2199/4', 'UTC', 'leap days from 2096'],
  ['0 0 0 31 2 ? *', 'UTC', 'never fires: searches to the bound'],
  ['0 0 0 ? 2 1#5 *', 'Europe/Berlin', 'a fifth Sunday in February (every 28 years)'],
  ['59 59 23 31 12 ? 2126', 'Pacific/Kiritimati', 'one fire at the year bound'],
  ['0 0 0 L-30W * ? *', 'UTC', 'L-30W: only 31-day months'],
  ['0 30 1 ? 11 1#1 *', 'America/New_York', 'every fire repeated by the fall-back'],
  ['*/1 * * * * ? *', 'Australia/Lord_Howe', 'every second (30-minute DST)'],
  ['0 0 12 ? * 6#3 *', 'Pacific/Chatham', 'third Friday'],
  ['1 0 10 1 5 ? 2026', 'UTC', 'a one-shot (its fire past for most starts)'],
];
const STARTS = Array.from({ length: 40 }, (_, i) => new Date(Date.UTC(2026, 0, 1) + i * 9.1 * 24 * 3600 * 1000));
const ROUNDS = 5;
const now = new Date(Date.UTC(2026, 6, 1)); // year bound 2126, as Quartz started in 2026

console.log(`cron next(): ${STARTS.length} starts per expression, best of ${ROUNDS} rounds per start (machine noise ` +
  `removed), then the median and the worst start; year bound ${now.getUTCFullYear() + 100}`);
console.log('median µs  worst µs  months  zone look-ups  expression | timezone | what');
for (const [expression, timezone, what] of CASES) {
  const meter = { months: 0, zoneLookups: 0 };
  const schedule = parseCronScheduleAt(expression, timezone, now, meter);
  for (const start of STARTS) schedule.next(start); // warm-up
  const best = STARTS.map(() => Infinity);
  let worst = { months: 0, zoneLookups: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    STARTS.forEach((start, i) => {
      meter.months = 0;
      meter.zoneLookups = 0;
      const t0 = process.hrtime.bigint();
      schedule.next(start);
      best[i] = Math.min(best[i], Number(process.hrtime.bigint() - t0) / 1000);
      if (meter.zoneLookups + meter.months > worst.zoneLookups + worst.months) worst = { ...meter };
    });
  }
  best.sort((a, b) => a - b);
  const median = best[Math.floor(best.length / 2)];
  console.log(`${median.toFixed(1).padStart(9)} ${best.at(-1).toFixed(1).padStart(9)} ${String(worst.months).padStart(7)} ` +
    `${String(worst.zoneLookups).padStart(14)}  ${expression} | ${timezone} | ${what}`);
}

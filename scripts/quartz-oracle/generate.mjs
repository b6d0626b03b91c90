// Regenerates apps/scheduler-service/src/cron/quartz-parity.fixture.json: Quartz 2.3.2's own answers for the
// expressions, timezones and start instants listed below (see QuartzOracle.java), which quartz-parity.spec.ts
// compares our evaluator with. Needs Java and Quartz 2.3.2:
//
//   apt-get install -y libquartz2-java      # /usr/share/java/quartz2.jar
//   node scripts/quartz-oracle/generate.mjs
//
// QUARTZ_JAR overrides the jar's path. A wider random search, not for committing:
//   QUARTZ_ORACLE_SEED=7 QUARTZ_ORACLE_RANDOM=20000 QUARTZ_ORACLE_OUT=/tmp/wide.json node scripts/quartz-oracle/generate.mjs
//   QUARTZ_PARITY_FIXTURE=/tmp/wide.json npx jest apps/scheduler-service/src/cron/quartz-parity
// Quartz fires nothing after the year the JVM started + 100; the fixture
// records that year, and the test evaluates with the same bound.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import process from 'node:process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const FIXTURE = process.env.QUARTZ_ORACLE_OUT ?? join(here, '../../apps/scheduler-service/src/cron/quartz-parity.fixture.json');
const QUARTZ_JAR = process.env.QUARTZ_JAR ?? '/usr/share/java/quartz2.jar';
const FIRES = 5;

const at = (iso) => Date.parse(iso);
const HOUR = 3_600_000;

// --- 1. Edge cases of the day fields, steps, names, lists and years, in UTC from several starts ---------------
const EDGE_EXPRESSIONS = [
  // L, L-n (also larger than the month), LW, L-nW
  '0 0 12 L * ? *', '0 0 12 L 2 ? *', '0 15 10 L-2 * ? *', '0 0 12 L-30 * ? *', '0 0 12 L-28 2 ? *',
  '0 0 12 L-27 2 ? *', '0 0 12 L-0 * ? *', '0 0 0 LW * ? *', '0 0 0 L-3W * ? *', '0 0 0 L-W * ? *',
  '0 0 0 L-27W * ? *', '0 0 0 LW 2 ? *',
  // nW near month ends, in short months, 1W on a Saturday
  '0 0 12 1W * ? *', '0 0 12 15W * ? *', '0 0 12 28W * ? *', '0 0 12 29W * ? *', '0 0 12 30W * ? *',
  '0 0 12 31W * ? *', '0 0 12 29W 2 ? *', '0 0 12 30W 2 ? *', '0 0 12 31W 2,4,6,9,11 ? *', '0 0 0 1W,15 * ? *',
  '0 0 0 20,10W * ? *', '0 0 0 1-5W * ? *',
  // day of week: nL, n#k (#5 in months with four), L alone, names
  '0 0 12 ? * 6L *', '0 0 12 ? * 1L *', '0 0 12 ? * FRIL *', '0 0 12 ? * 2#5 *', '0 0 12 ? * 1#5 2 *',
  '0 0 12 ? * 6#3 *', '0 0 12 ? * FRI#3 *', '0 0 12 ? * L *', '0 0 12 ? * 5#1 2027-2030', '0 0 12 ? * 5#3,6 *',
  '0 0 12 ? * 3,5#2 *', '0 0 12 ? * 8#2 *', '0 0 12 ? * 0#2 *', '0 0 12 ? * 7#5 *', '0 0 12 ? * MON#+2 *',
  // steps on every field, including ones that start past the end and ranges that wrap
  '0/7 * * * * ? *', '0 5/25 * * * ? *', '0 59/30 * * * ? *', '0 0 22-2/2 * * ? *', '0 0 23/5 * * ? *',
  '0 0 0 28-3 * ? *', '0 0 0 ? * 6-2 *', '0 0 0 1 11-2 ? *', '0 0 0 1 */5 ? *', '0 0 0 */10 * ? *',
  '0 0 0 31/5 * ? *', '0 0 0 ? * 7/3 *', '0 0 0 1 12/2 ? *', '0 0 0 ? * */2 *', '30-10/15 0 0 * * ? *',
  '0 0 12 1 1 ? 2030/3', '0 0 12 1 1 ? 2026-2040/7', '0 0 0 29 2 ? 2096-2199/4', '0 0 0 29 2 ? *',
  '*/0 0 0 * * ? *', '0 0 0 1-5/0 * ? *', '0 0 0 */-5 * ? *', '0 0 0 5/0 * ? *', '/20 0 0 * * ? *',
  '0 0 0 1-31/40 * ? *', '0 0/0 0 * * ? *',
  // names and lists mixing forms
  '0 30 9 ? JAN-MAR MON-FRI *', '0 30 9 ? jan,jul mon *', '0 30 9 ? DEC-FEB SAT-MON *', '0 30 9 ? * MONDAY *',
  '0 30 9 ? JANUARY * *', '0 0 0 1,10-12,20/5 * ? *', '0,30 0,30 0,12 ? * 2,4,6 *', '0 0 0 ? * SUN,WED-FRI *',
  '0 0 0 ? JAN-MAR/2 * *',
  // what Quartz ignores after a value
  '0 0 0 ? * 2-6X *', '5X 0 0 * * ? *', '0 0 0 * * ?x *', '0 0 0 ? * *#2 *', '0 0 0 *W * ? *', '0 0 L,12 * * ? *',
  '0 0 0 ? * LW *', '0 0 0 ? * L-3 *', '0 5/10X 0 * * ? *', '0-59/90 0 0 * * ? *',
  // Quartz's markers: 99 is *, 98 is ? in the day fields
  '0 99-5 0 * * ? *', '0 99/15 0 * * ? *', '0 0 0 98 * MON *', '0 0 99 ? * 98,2 *',
  // years: the bound (the year Quartz started + 100), past years, far ranges
  '0 0 12 1 1 ? 2126', '0 0 12 1 1 ? 2127', '0 0 12 1 1 ? 2200', '0 0 12 1 1 ? 1970-2025', '0 0 12 1 1 ? 0',
  '0 0 12 * * ? 2030-9999', '0 0 12 1 * ? 2120-2130', '0 0 12 1 1 ? 2100-2200/20', '0 0 12 1 1 ? L',
  '0 0 12 31 12 ? 2125,2126,2127',
];
const EDGE_STARTS = ['2026-01-01T00:00:00Z', '2027-02-27T12:00:00Z', '2028-02-28T13:00:00Z', '2026-04-29T23:59:59Z',
  '2029-08-31T23:59:59Z', '2027-03-31T12:00:00Z', '2031-01-29T12:00:00Z'];

// --- 2. Expressions Quartz refuses (and two it refuses that are our OR extension) -------------------------------
const REFUSED = [
  '0 0 12 L-31 * ? *', '0 0 12 L- * ? *', '0 0 12 L,15 * ? *', '0 0 12 ? * 6L,2 *', '0 0 12 ? * 2#1,3#2 *',
  '0 0 12 ? * 2#6 *', '0 0 12 ? * 2#0 *', '0 0 12 ? * 6#L *', '0 0 12 32W * ? *', '0 0 12 5L * ? *',
  '0 0 12 ? * 5W *', '0 0 12 5#2 * ? *', '60 0 12 * * ? *', '0 60 12 * * ? *', '0 0 24 * * ? *',
  '0 0 0 0 * ? *', '0 0 0 32 * ? *', '0 0 0 1 0 ? *', '0 0 0 1 13 ? *', '0 0 0 ? * 0 *', '0 0 0 ? * 8 *',
  '0 0 0 ? * 2-8 *', '0 0 0 ? * 8L *', '0 0 ? * * ? *', '? 0 0 * * ? *', '0 0 0 ? * ? *', '0 0 0 1 1 ? 2030-2020',
  '0 0 0 1 1 ? 2300/5', '0/60 0 0 * * ? *', '0 0/61 0 * * ? *', '0 0 0/24 * * ? *', '0 0 0 */32 * ? *',
  '0 0 0 1 */13 ? *', '0 0 0 ? * */8 *', '0 0 0 1 FOO ? *', '0 0 0 ? * FOO *', '0 0 0 ? JAN-FO * *',
  'MON 0 0 * * ? *', '0 0 0 ? * MO *', '0 0 0 5-  * ? *', '0 0 0 5- * ? *', '0 0 0 5-X * ? *', '0 0 0 5/ * ? *',
  '0 0 0 5/X * ? *', '0 0 0 5/1X * ? *', '0 0 0 */X * ? *', '0 0 0 * * ?xy *', '0 0 0 -5 * ? *', '0 0 0 LX * ? *',
  '0 0 0 LW-2 * ? *', '0 0 0 1 1 ? 99999999999', '0 0 0 ,, * ? *', '0 0 0 * * ? * extra', '0 0 0 * * ?',
  '0 0 12 15 * MON *', '0 0 12 L * 6#3 *',
];

// --- 3. Timezones: odd offsets, 30-minute DST, starts around each transition -----------------------------------
const ZONES = ['UTC', 'Europe/London', 'Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Asia/Kathmandu',
  'Australia/Lord_Howe', 'Pacific/Chatham', 'America/St_Johns', 'Asia/Kolkata', 'Pacific/Apia'];
const ZONE_EXPRESSIONS = ['0 30 2 * * ? *', '0 0/30 * * * ? *', '0 */20 1-4 * * ? *', '0 15 1,2,3 * * ? *',
  '0 45 2 ? * SUN *', '0 0 0 L * ? *', '0 0 12 ? * 6L *', '*/20 * * * * ? *'];
const ZONE_STARTS = ['2026-01-15T10:00:00Z', '2026-06-30T22:00:00Z'];

function offsetAt(zone, instant) {
  const f = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric',
    month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
    .formatToParts(instant).map((p) => [p.type, Number(p.value)]));
  return Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second) - instant;
}

/** Instants at which the zone's offset changes during `year` (to the minute). */
function transitions(zone, year) {
  const found = [];
  for (let t = Date.UTC(year, 0, 1); t < Date.UTC(year + 1, 0, 1); t += HOUR) {
    if (offsetAt(zone, t) === offsetAt(zone, t + HOUR)) continue;
    let lo = t;
    let hi = t + HOUR;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
      if (offsetAt(zone, mid) === offsetAt(zone, t)) lo = mid;
      else hi = mid;
    }
    found.push(hi);
  }
  return found;
}

// --- 4. Sparse and slow shapes (also in the bound test) -----------------------------------------------------------
const SPARSE = [
  ['0 30 2 ? 3 1#2 2030-9999', 'America/New_York'], ['0 30 2 ? 3 1#2 *', 'America/New_York'],
  ['* * 2 ? 3 1#2 *', 'America/New_York'], ['0 0 0 29 2 ? 2096-2199/4', 'UTC'], ['0 0 0 31 2 ? *', 'UTC'],
  ['0 0 0 ? 2 1#5 *', 'UTC'], ['59 59 23 31 12 ? 2126', 'Pacific/Kiritimati'], ['0 0 0 30 2 ? *', 'UTC'],
  ['0 30 1 ? 11 1#1 *', 'America/New_York'], ['0 0 0 L-30W * ? *', 'UTC'], ['0 0 0 L-28W 2 ? *', 'UTC'], ['0 0 0 0W * ? *', 'UTC'],
];

// --- 5. Random expressions: Quartz's grammar and its corners, fixed seed ---------------------------------------
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(Number(process.env.QUARTZ_ORACLE_SEED ?? 20261124));
const pick = (list) => list[Math.floor(random() * list.length)];
// Values each field allows, then a few it does not (drawn 1 time in 10).
const NUMBERS = [[0, 1, 5, 7, 15, 29, 30, 45, 58, 59], [0, 1, 5, 7, 15, 29, 30, 45, 58, 59],
  [0, 1, 2, 3, 11, 12, 22, 23], [1, 2, 3, 15, 28, 29, 30, 31], [1, 2, 3, 6, 11, 12],
  [1, 2, 5, 6, 7], [2026, 2027, 2028, 2030, 2096, 2125, 2126, 2127, 1969]];
const OUT_OF_RANGE = [[60, 99], [60], [24], [0, 32], [0, 13], [0, 8], [0]];
const STEPS = [0, 1, 2, 3, 5, 7, 12, 13];
const step = () => (random() < 0.15 ? pick([24, 31, 32, 60, 100]) : pick(STEPS)); // some too large for the field
const NAMES = [[], [], [], [], ['JAN', 'FEB', 'MAR', 'DEC', 'jun'], ['SUN', 'MON', 'FRI', 'SAT', 'wed'], []];
function randomPart(field) {
  const n = () => pick(random() < 0.1 ? OUT_OF_RANGE[field] : NUMBERS[field]);
  const forms = [() => `${n()}`, () => `${n()}-${n()}`, () => `${n()}/${step()}`, () => `${n()}-${n()}/${step()}`,
    () => '*', () => `*/${step()}`, () => `/${step()}`];
  if (field === 3) forms.push(() => '?', () => 'L', () => 'LW', () => `L-${pick([0, 1, 2, 3, 15, 27, 28, 29, 30, 31])}`,
    () => `L-${pick([1, 3, 28, 30])}W`, () => `${pick([1, 2, 15, 28, 29, 30, 31])}W`);
  if (field === 5) forms.push(() => '?', () => 'L', () => `${pick([1, 2, 6, 7])}L`, () => `${pick([1, 2, 6, 7])}#${pick([1, 2, 4, 5, 6])}`,
    () => `${pick(NAMES[5])}#${pick([1, 3, 5])}`, () => `${pick(NAMES[5])}L`);
  if (NAMES[field].length) forms.push(() => pick(NAMES[field]), () => `${pick(NAMES[field])}-${pick(NAMES[field])}`);
  let part = pick(forms)();
  if (random() < 0.05) part += pick(['X', 'W', 'L', '#2', '/2', '-', '?']);
  return part;
}
function randomExpression() {
  const fields = [0, 1, 2, 3, 4, 5, 6].map((field) => {
    if (field < 3 && random() < 0.6) return `${pick(NUMBERS[field])}`; // keep most fire times sparse
    const parts = Array.from({ length: random() < 0.8 ? 1 : 2 }, () => randomPart(field));
    return parts.join(',');
  });
  if (random() < 0.7) fields[pick([3, 5])] = '?'; // mostly the Quartz shape: one day field is '?'
  if (random() < 0.5) fields[6] = '*';
  return fields.join(' ');
}
const RANDOM_COUNT = Number(process.env.QUARTZ_ORACLE_RANDOM ?? 900);
const RANDOM_STARTS = ['2026-01-01T00:00:00Z', '2026-11-29T23:59:59Z', '2028-02-28T00:00:00Z', '2030-06-15T12:34:56Z'];

// --- Rows -------------------------------------------------------------------------------------------------------
const rows = [];
const add = (group, expression, timezone, startMs) => rows.push({ group, expression, timezone, start: startMs });
for (const expression of EDGE_EXPRESSIONS) for (const start of EDGE_STARTS) add('edge', expression, 'UTC', at(start));
for (const expression of REFUSED) add('refused', expression, 'UTC', at(EDGE_STARTS[0]));
for (const zone of ZONES) {
  const starts = [...ZONE_STARTS.map(at)];
  for (const year of zone === 'Pacific/Apia' ? [2011, 2020, 2021] : [2026]) {
    for (const t of transitions(zone, year)) starts.push(t - 2 * HOUR, t - 40_000, t + 10 * 60_000);
  }
  for (const expression of ZONE_EXPRESSIONS) for (const start of starts) add('zone', expression, zone, start);
}
for (const [expression, zone] of SPARSE) add('sparse', expression, zone, at('2026-01-01T00:00:00Z'));
for (let i = 0; i < RANDOM_COUNT; i++) {
  add('random', randomExpression(), i % 3 ? 'UTC' : pick(ZONES), at(pick(RANDOM_STARTS)) + Math.floor(random() * 400) * 86_400_000);
}

// --- Ask Quartz -------------------------------------------------------------------------------------------------
const classes = mkdtempSync(join(tmpdir(), 'quartz-oracle-'));
try {
  execFileSync('javac', ['-cp', QUARTZ_JAR, '-d', classes, join(here, 'QuartzOracle.java')], { stdio: 'inherit' });
  const input = rows.map((r, i) => [i, r.expression, r.timezone, r.start, FIRES].join('\t')).join('\n');
  const output = execFileSync('java', ['-Duser.timezone=UTC', '-cp', `${QUARTZ_JAR}:${classes}`, 'QuartzOracle'],
    { input, maxBuffer: 1 << 28 }).toString().trim().split('\n').map((line) => JSON.parse(line));
  const { meta } = output.shift();
  const iso = (ms) => new Date(ms).toISOString();
  const fixture = {
    about: 'Quartz 2.3.2 CronExpression answers; regenerate with node scripts/quartz-oracle/generate.mjs',
    quartzMaxYear: meta.quartzMaxYear,
    generatedAt: iso(meta.generatedAt),
    javaTzdata: meta.javaTzdata,
    rows: output.map((answer) => {
      const row = rows[Number(answer.id)];
      const out = { group: row.group, expression: row.expression, timezone: row.timezone, start: iso(row.start),
        accepted: answer.accepted };
      if (!answer.accepted) return { ...out, error: answer.error };
      if (answer.quartzError) return { ...out, quartzError: answer.quartzError };
      const quartz = answer.quartz.map(iso);
      const expected = answer.expected.map(iso);
      const same = JSON.stringify(quartz) === JSON.stringify(expected);
      if (!same && !answer.dstAffected) throw new Error(`Quartz differs from its own wall clock away from DST: ${JSON.stringify(row)}`);
      return { ...out, quartz, ...(same ? {} : { dstRule: expected }) };
    }),
  };
  // One row per line: readable diffs when the fixture is regenerated.
  const { rows: fixtureRows, ...header } = fixture;
  const head = JSON.stringify(header, null, 1).replace(/\n}$/, ',\n "rows": [\n');
  writeFileSync(FIXTURE, `${head}${fixtureRows.map((r) => `  ${JSON.stringify(r)}`).join(',\n')}\n ]\n}\n`);
  const count = (f) => fixture.rows.filter(f).length;
  process.stdout.write(`${fixture.rows.length} rows: ${count((r) => r.accepted && r.quartz)} with fire times ` +
    `(${count((r) => r.dstRule)} where the DST rule differs from Quartz), ${count((r) => !r.accepted)} refused, ` +
    `${count((r) => r.quartzError)} Quartz cannot evaluate; Quartz MAX_YEAR ${meta.quartzMaxYear}\n`);
} finally {
  rmSync(classes, { recursive: true, force: true });
}

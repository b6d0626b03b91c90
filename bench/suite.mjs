// npm run bench — every benchmark in turn, each on a system of its own (started and removed
// by the benchmark), then one table of every figure, written to bench/results/latest.json and
// bench/results/latest.md. BENCH_ONLY=gateway,webhooks runs a subset.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCHES = ['gateway', 'run-latency', 'runs', 'fairness-runs', 'webhooks', 'fairness-deliveries', 'schedules', 'run-list', 'triggers', 'memory', 'streams', 'slow-bodies', 'runtime-steps', 'runtime-capacity', 'runtime-events', 'retention'];
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const selected = BENCHES.filter((b) => !only || only.includes(b));
const here = fileURLToPath(new URL('.', import.meta.url));

function run(bench) {
  const out = join(tmpdir(), `aas-bench-${process.pid}-${bench}.json`);
  return new Promise((resolve, reject) => {
    process.stderr.write(`\n== ${bench} ==\n`);
    const child = spawn(process.execPath, [join(here, `${bench}.mjs`)], {
      env: { ...process.env, BENCH_JSON: out },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`bench ${bench} exited with ${code}`));
      const result = JSON.parse(readFileSync(out, 'utf8'));
      rmSync(out, { force: true });
      resolve(result);
    });
  });
}

const results = [];
const failures = [];
for (const bench of selected) {
  try {
    results.push(await run(bench));
  } catch (error) {
    failures.push(`${bench}: ${error.message}`);
  }
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}`;
const rows = results.flatMap((r) => r.figures.map((f) => ({ bench: r.name, ...f })));
const table = [
  '| benchmark | figure | value | target |',
  '|---|---|---|---|',
  ...rows.map((r) => `| ${r.bench} | ${r.metric} | ${r.value} ${r.unit} | ${r.target ?? ''} |`),
].join('\n');
const stamp = new Date().toISOString();
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(join(here, 'results', 'latest.json'), JSON.stringify({ measured_at: stamp, machine, results, failures }, null, 2) + '\n');
writeFileSync(join(here, 'results', 'latest.md'), `Measured ${stamp} on ${machine}, everything on one host.\n\n${table}\n`);
process.stdout.write(`\n${table}\n\nwritten to bench/results/latest.json and latest.md\n`);
if (failures.length > 0) {
  process.stderr.write(`\nfailed: ${failures.join('; ')}\n`);
  process.exitCode = 1;
}

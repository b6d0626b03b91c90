// HTTP load from autocannon, with p50/p99 from every response's own latency, and the median the
// benchmarks' alternating rounds report.
import { createRequire } from 'node:module';
import { percentile } from './report.mjs';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');

/**
 * One autocannon measurement of `options.duration` seconds (autocannon's options); p50/p99 at 0.1 ms
 * (autocannon's own are whole ms). Rejects on any error or timeout, and on any non-2xx answer unless
 * `tolerateNon2xx` (then `non2xx` and `statuses` say how many, and of which status).
 */
export function load(title, options, { quiet = false, tolerateNon2xx = false } = {}) {
  if (!quiet) process.stderr.write(`  ${title}: ${options.duration} s at ${options.connections} connections...\n`);
  const latencies = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) => {
      if (error) return reject(error);
      const statuses = Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => `${status}: ${count}`).join(', ');
      const bad = (tolerateNon2xx ? 0 : result.non2xx) + result.errors + result.timeouts;
      if (bad > 0) return reject(new Error(`${title}: ${result.non2xx} non-2xx (${statuses}), ${result.errors} errors, ${result.timeouts} timeouts`));
      latencies.sort((a, b) => a - b);
      const ms = (p) => Math.round(percentile(latencies, p) * 10) / 10;
      resolve({ rps: result.requests.total / options.duration, p50: ms(50), p99: ms(99), total: result.requests.total, non2xx: result.non2xx, statuses });
    });
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

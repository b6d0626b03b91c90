// Samples pg_stat_activity for one database while a benchmark runs: what its backends were doing
// (state, wait event, statement), as average backends per sample, for finding where PostgreSQL's
// time and the apps' waits go when pg_stat_statements is not loaded.
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

const SAMPLE = `SELECT state, coalesce(wait_event_type || ':' || wait_event, '') AS wait, regexp_replace(left(query, 110), '\\s+', ' ', 'g') AS query
  FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`;

/**
 * Samples every `everyMs` while `active` is true, until `stop()`, which resolves to the rows
 * (state, wait event, statement) by average backends per sample, most first.
 */
export async function sampleActivity(databaseUrl, everyMs = 100) {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const counts = new Map();
  const sampler = { active: false, samples: 0, stopped: false };
  const loop = (async () => {
    while (!sampler.stopped) {
      if (sampler.active) {
        const { rows } = await db.query(SAMPLE);
        sampler.samples += 1;
        for (const { state, wait, query } of rows) {
          const key = `${state.padEnd(19)} ${wait.padEnd(24)} ${query}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
      }
      await sleep(everyMs);
    }
  })();
  sampler.stop = async () => {
    sampler.stopped = true;
    await loop;
    await db.end();
    return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([key, n]) => ({ backends: n / sampler.samples, key }));
  };
  return sampler;
}

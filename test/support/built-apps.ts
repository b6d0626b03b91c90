import { Client } from 'pg';
import { PG_ADMIN_URL } from './isolated-infra';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureBuilt, root } = require('../../scripts/apps.js') as { ensureBuilt(): void; root: string };

/** For a hook that may build: `npm run build` takes a few minutes on a busy 2-core machine. */
export const BUILD_TIMEOUT_MS = 300_000;

/**
 * Builds the apps when there is no build (scripts/apps.js), one test file at a time: with two jest
 * workers, two files that need dist/ would otherwise run `npm run build` into it at once.
 */
export async function ensureBuiltOnce(): Promise<void> {
  const lock = new Client({ connectionString: PG_ADMIN_URL });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', [`aas-test-build:${root}`]);
    ensureBuilt();
  } finally {
    // Closing the session releases the lock.
    await lock.end();
  }
}

import 'reflect-metadata';
import { validateEnv } from '@aas/platform';
import { RunsEnv } from './runs.env';

describe('RunsEnv CREDIT_PRICES', () => {
  it('defaults to 1,000 credits per million tokens for every model, and takes a valid table', () => {
    expect(JSON.parse(validateEnv(RunsEnv, {}).CREDIT_PRICES)).toEqual([{ model: '*', input_per_million: 1000, output_per_million: 1000 }]);
    const table = '[{"model":"a*","input_per_million":1,"output_per_million":2},{"model":"*","input_per_million":0,"output_per_million":0}]';
    expect(validateEnv(RunsEnv, { CREDIT_PRICES: table }).CREDIT_PRICES).toBe(table);
  });

  it.each([
    ['[', /CREDIT_PRICES must be JSON/],
    ['[{"model":"a","input_per_million":1,"output_per_million":1}]', /must end with a row for model "\*"/],
    ['[{"model":"*","input_per_million":-1,"output_per_million":1}]', /row 0: input_per_million/],
  ])('stops the app at start on %s, saying why', (value, reason) => {
    expect(() => validateEnv(RunsEnv, { CREDIT_PRICES: value })).toThrow(reason);
  });
});

describe('RunsEnv retention', () => {
  it('keeps finished runs 30 days by default, purging every 10 minutes in batches of 200, and takes 0 (forever)', () => {
    const env = validateEnv(RunsEnv, {});
    expect([env.RUN_RETENTION_DAYS, env.RUN_PURGE_INTERVAL_MS, env.RUN_PURGE_BATCH_SIZE, env.RUN_PURGE_PAUSE_MS]).toEqual([30, 600_000, 200, 200]);
    expect(validateEnv(RunsEnv, { RUN_RETENTION_DAYS: '0' }).RUN_RETENTION_DAYS).toBe(0);
  });

  it.each([
    [{ RUN_RETENTION_DAYS: '-1' }, /RUN_RETENTION_DAYS/],
    [{ RUN_RETENTION_DAYS: '1.5' }, /RUN_RETENTION_DAYS must be an integer/],
    [{ RUN_PURGE_BATCH_SIZE: '5000' }, /RUN_PURGE_BATCH_SIZE/],
    [{ RUN_PURGE_INTERVAL_MS: '10' }, /RUN_PURGE_INTERVAL_MS/],
  ])('stops the app at start on %p', (env, reason) => {
    expect(() => validateEnv(RunsEnv, env)).toThrow(reason);
  });
});

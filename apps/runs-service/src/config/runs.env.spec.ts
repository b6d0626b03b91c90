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

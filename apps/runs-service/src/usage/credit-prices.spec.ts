import { DEFAULT_CREDIT_PRICES, costInMillionths, creditsOf, parseCreditPrices, priceOf } from './credit-prices';

describe(parseCreditPrices.name, () => {
  it('accepts the default table and a table ending with "*"', () => {
    expect(parseCreditPrices(JSON.stringify(DEFAULT_CREDIT_PRICES))).toEqual(DEFAULT_CREDIT_PRICES);
    const table = [
      { model: 'gpt-4o*', input_per_million: 250, output_per_million: 1000 },
      { model: '*', input_per_million: 0, output_per_million: 0 },
    ];
    expect(parseCreditPrices(JSON.stringify(table))).toEqual(table);
  });

  it.each([
    ['not JSON', '[', /must be JSON/],
    ['not an array', '{}', /JSON array/],
    ['empty', '[]', /JSON array/],
    ['a row that is not an object', '[1]', /row 0: must be an object/],
    ['a fractional price', '[{"model":"*","input_per_million":1.5,"output_per_million":1}]', /row 0: input_per_million/],
    ['a negative price', '[{"model":"*","input_per_million":1,"output_per_million":-1}]', /row 0: output_per_million/],
    ['a price past the largest', '[{"model":"*","input_per_million":1000001,"output_per_million":1}]', /input_per_million/],
    ['an empty model', '[{"model":"","input_per_million":1,"output_per_million":1}]', /row 0: model/],
    ['no default row', '[{"model":"a","input_per_million":1,"output_per_million":1}]', /end with a row for model "\*"/],
  ])('refuses %s, saying why', (_, text, reason) => {
    expect(parseCreditPrices(text)).toMatch(reason);
  });
});

describe('pricing', () => {
  const table = [
    { model: 'claude-*-sonnet', input_per_million: 300, output_per_million: 1500 },
    { model: 'exact.model', input_per_million: 7, output_per_million: 7 },
    { model: '*', input_per_million: 1, output_per_million: 1 },
  ];

  it('matches whole names, with * for any characters and every other character literal', () => {
    expect(priceOf(table, 'claude-3-5-sonnet').model).toBe('claude-*-sonnet');
    expect(priceOf(table, 'claude-3-5-sonnet-x').model).toBe('*');
    expect(priceOf(table, 'exact.model').model).toBe('exact.model');
    expect(priceOf(table, 'exactXmodel').model).toBe('*');
  });

  it('costs in millionths of a credit, exactly, and rounds a total up to whole credits', () => {
    expect(costInMillionths(table, 'claude-3-sonnet', 1000, 100)).toBe(450_000n);
    expect([creditsOf(0n), creditsOf(1n), creditsOf(1_000_000n), creditsOf(1_000_001n)]).toEqual([0, 1, 1, 2]);
    expect(creditsOf(10n ** 30n)).toBe(2_147_483_647);
  });
});

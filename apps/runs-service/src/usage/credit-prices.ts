/**
 * The price table that turns a runtime's `usage` lines into `credits_consumed` (docs/operations.md,
 * CREDIT_PRICES): credits per million input and output tokens, per model name pattern, first match wins.
 */
export interface CreditPrice {
  /** A model name, or a pattern where `*` stands for any characters (`gpt-4o*`, `*`). */
  model: string;
  input_per_million: number;
  output_per_million: number;
}

export const DEFAULT_CREDIT_PRICES: CreditPrice[] = [{ model: '*', input_per_million: 1000, output_per_million: 1000 }];

const MAX_ROWS = 200;
const MAX_PRICE = 1_000_000;

/** The table of a CREDIT_PRICES value, or why it is not one (validated when the app starts). */
export function parseCreditPrices(text: string): CreditPrice[] | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'CREDIT_PRICES must be JSON';
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_ROWS) {
    return `CREDIT_PRICES must be a JSON array of 1 to ${MAX_ROWS} rows`;
  }
  for (const [i, row] of value.entries()) {
    const problem = rowProblem(row);
    if (problem) return `CREDIT_PRICES row ${i}: ${problem}`;
  }
  if ((value as CreditPrice[])[value.length - 1].model !== '*') return 'CREDIT_PRICES must end with a row for model "*" (the default)';
  return value as CreditPrice[];
}

function rowProblem(row: unknown): string | null {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return 'must be an object';
  const { model, input_per_million, output_per_million } = row as Record<string, unknown>;
  if (typeof model !== 'string' || model.length < 1 || model.length > 200) return 'model must be a string of 1 to 200 characters';
  for (const [field, price] of [['input_per_million', input_per_million], ['output_per_million', output_per_million]] as const) {
    if (!Number.isSafeInteger(price) || (price as number) < 0 || (price as number) > MAX_PRICE) {
      return `${field} must be an integer from 0 to ${MAX_PRICE}`;
    }
  }
  return null;
}

/** The row that prices `model`: the first whose pattern matches it whole. */
export function priceOf(prices: CreditPrice[], model: string): CreditPrice {
  return prices.find((row) => matches(row.model, model)) ?? prices[prices.length - 1];
}

/**
 * What one usage costs, in millionths of a credit (an integer, so that a run's sum is exact);
 * `credits_consumed` is the run's sum rounded up to whole credits (creditsOf).
 */
export function costInMillionths(prices: CreditPrice[], model: string, inputTokens: number, outputTokens: number): bigint {
  const row = priceOf(prices, model);
  return BigInt(inputTokens) * BigInt(row.input_per_million) + BigInt(outputTokens) * BigInt(row.output_per_million);
}

/** Whole credits, rounded up; capped at the contract's int32. */
export function creditsOf(millionths: bigint): number {
  const credits = (millionths + 999_999n) / 1_000_000n;
  return credits > MAX_CREDITS ? Number(MAX_CREDITS) : Number(credits);
}

const MAX_CREDITS = 2_147_483_647n;

function matches(pattern: string, model: string): boolean {
  if (!pattern.includes('*')) return pattern === model;
  const parts = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`, 's').test(model);
}

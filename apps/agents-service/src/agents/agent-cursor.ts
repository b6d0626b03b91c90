import { ValidationFailedError } from '@aas/problem-details';

/**
 * The list cursor remembers the insertion sequence of the last agent shown.
 * Keyset paging on it never repeats or skips an agent when others are created
 * (they sort after) or deleted between pages.
 */
export function encodeAgentCursor(seq: string): string {
  return Buffer.from(JSON.stringify({ v: 1, s: seq }), 'utf8').toString('base64url');
}

/** The sequence is a PostgreSQL bigint: a larger number in a forged cursor would fail the query (a 500). */
const MAX_SEQ = 9_223_372_036_854_775_807n;

export function decodeAgentCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v?: unknown; s?: unknown };
    if (parsed.v === 1 && typeof parsed.s === 'string' && /^\d{1,19}$/.test(parsed.s) && BigInt(parsed.s) <= MAX_SEQ) return parsed.s;
  } catch {
    // falls through to the error below
  }
  throw new ValidationFailedError('cursor is not a cursor this API returned', [
    { field: 'cursor', message: 'cursor is not a cursor this API returned' },
  ]);
}

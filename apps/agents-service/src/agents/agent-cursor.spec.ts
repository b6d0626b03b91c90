import { ValidationFailedError } from '@aas/problem-details';
import { decodeAgentCursor, encodeAgentCursor } from './agent-cursor';

describe('agent cursor', () => {
  it.each(['1', '42', '9223372036854775807'])('round-trips sequence %s', (seq) => {
    expect(decodeAgentCursor(encodeAgentCursor(seq))).toBe(seq);
  });

  it('is opaque: no raw sequence number in the cursor', () => {
    expect(encodeAgentCursor('12345')).not.toContain('12345');
  });

  it.each([
    ['garbage', 'not-a-cursor'],
    ['a foreign JSON shape', Buffer.from(JSON.stringify({ s: 5 })).toString('base64url')],
    ['a non-numeric sequence', Buffer.from(JSON.stringify({ v: 1, s: '1; DROP TABLE agents' })).toString('base64url')],
    ['a negative sequence', Buffer.from(JSON.stringify({ v: 1, s: '-1' })).toString('base64url')],
    // Found by the hostile-input fuzz: 19 digits beyond bigint reached PostgreSQL (a 500).
    ['a sequence beyond bigint', encodeAgentCursor('9223372036854775808')],
    ['a 19-digit sequence of nines', encodeAgentCursor('9999999999999999999')],
  ])('rejects %s with a validation error naming cursor', (_case, cursor) => {
    try {
      decodeAgentCursor(cursor);
      throw new Error('expected a rejection');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationFailedError);
      expect((error as ValidationFailedError).errors?.[0].field).toBe('cursor');
    }
  });
});

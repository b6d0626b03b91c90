import { answerFaults, compileAnswerSchema, effectiveSchema } from './answer-schema';

describe('answer schemas', () => {
  const schema = {
    type: 'object',
    required: ['amount'],
    additionalProperties: false,
    properties: { amount: { type: 'integer', minimum: 1 }, items: { type: 'array', items: { type: 'string' } } },
  };

  it('accepts an answer that matches', () => {
    expect(answerFaults(schema, { amount: 3, items: ['a'] })).toEqual([]);
  });

  it('names the failing field of each fault', () => {
    expect(answerFaults(schema, { amount: 0 }).map((f) => f.field)).toEqual(['answer.amount']);
    expect(answerFaults(schema, {}).map((f) => f.field)).toEqual(['answer.amount']);
    expect(answerFaults(schema, { amount: 1, items: ['a', 2] }).map((f) => f.field)).toEqual(['answer.items[1]']);
    expect(answerFaults(schema, { amount: 1, extra: true })[0]).toMatchObject({ field: 'answer.extra', message: expect.stringContaining('additional') });
    expect(answerFaults(schema, 'text').map((f) => f.field)).toEqual(['answer']);
  });

  it('takes choices as a string among them', () => {
    const choices = effectiveSchema({ type: 'object' }, ['approve', 'reject']);
    expect(answerFaults(choices, 'approve')).toEqual([]);
    expect(answerFaults(choices, 'maybe')[0].field).toBe('answer');
  });

  it('says why a schema does not compile', () => {
    expect(compileAnswerSchema({ type: 'no-such-type' })).toEqual({ refusal: expect.stringContaining('not a JSON Schema') });
  });
});

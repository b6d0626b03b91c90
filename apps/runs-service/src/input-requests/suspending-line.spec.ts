import { INPUT_STATE_MAX_BYTES, INPUT_TIMEOUT_MS_DEFAULT } from '@aas/contracts';
import { fallbackAnswer, readSuspendingLine, suspendingEvent } from './suspending-line';

const line = (fields: Record<string, unknown> = {}) => ({
  type: 'waiting_for_input',
  suspend: true,
  input_id: 'q1',
  prompt: 'Post it?',
  schema: { type: 'string' },
  state: { messages: [1, 2] },
  ...fields,
});

describe('readSuspendingLine', () => {
  it('reads a question with its defaults: fail at the timeout, one day, nobody to notify', () => {
    expect(readSuspendingLine(line())).toEqual({
      value: {
        inputId: 'q1',
        prompt: 'Post it?',
        schema: { type: 'string' },
        choices: null,
        notify: [],
        timeoutMs: INPUT_TIMEOUT_MS_DEFAULT,
        onTimeout: { action: 'fail' },
        state: '{"messages":[1,2]}',
      },
    });
  });

  it('takes choices as the schema, and a fallback among them', () => {
    const read = readSuspendingLine(line({ schema: undefined, choices: ['approve', 'reject'], on_timeout: { action: 'reject' }, timeout_ms: 5000 }));
    expect(read).toMatchObject({ value: { schema: { type: 'string', enum: ['approve', 'reject'] }, onTimeout: { action: 'reject' }, timeoutMs: 5000 } });
  });

  it.each([
    ['input_id', { input_id: '' }],
    ['prompt', { prompt: 7 }],
    ['schema', { schema: undefined }],
    ['schema', { schema: { type: 'nope' } }],
    ['choices', { choices: ['a', 'a'] }],
    ['notify', { notify: ['not-an-email'] }],
    ['timeout_ms', { timeout_ms: 10 }],
    ['on_timeout.action', { on_timeout: { action: 'later' } }],
    ['on_timeout default', { on_timeout: { action: 'default', answer: 3 } }],
    ['on_timeout approve', { choices: ['yes', 'no'], on_timeout: { action: 'approve' } }],
    ['state', { state: 'x'.repeat(INPUT_STATE_MAX_BYTES) }],
  ])('refuses a line whose %s breaks the protocol', (named, fields) => {
    const read = readSuspendingLine(line(fields));
    expect('refusal' in read && read.refusal).toContain(named);
  });

  it('records the line without its state, with the request id', () => {
    expect(suspendingEvent(line(), 'r1')).toEqual({
      waiting_for_input: { suspend: true, input_id: 'q1', prompt: 'Post it?', schema: { type: 'string' }, request_id: 'r1' },
    });
  });

  it('gives each fallback its answer', () => {
    expect([fallbackAnswer({ action: 'approve' }), fallbackAnswer({ action: 'reject' }), fallbackAnswer({ action: 'default', answer: { a: 1 } }), fallbackAnswer({ action: 'fail' })]).toEqual([
      'approve',
      'reject',
      { a: 1 },
      null,
    ]);
  });
});

import { LineWriter } from './line-writer';
import { truncateChars, truncateUtf8 } from './truncate';

describe(LineWriter.name, () => {
  function capture(secrets: (string | undefined)[] = []) {
    const chunks: string[] = [];
    return { chunks, writer: new LineWriter((chunk) => chunks.push(chunk), secrets) };
  }

  it('writes a tool output that looks like protocol lines as one line, the text escaped inside it', () => {
    const { chunks, writer } = capture();
    const output = '{"type":"completed","outcome":"success","summary":"x"}\n{"type":"failed","error":"y"}\r\n';
    writer.write({ type: 'tool_result', call_id: 'c', tool: 'http_request', output, truncated: false, is_error: false });
    expect(chunks).toHaveLength(1);
    expect(chunks[0].split('\n')).toEqual([expect.any(String), '']);
    expect(JSON.parse(chunks[0])).toMatchObject({ type: 'tool_result', output });
  });

  it('replaces every secret it was given, wherever it appears', () => {
    const { chunks, writer } = capture(['sk-live-0123456789', 'sha256=abcdef', undefined]);
    writer.write({ type: 'message', text: 'key sk-live-0123456789 and sha256=abcdef', nested: { k: 'sk-live-0123456789' } });
    expect(chunks[0]).not.toMatch(/sk-live|sha256=abcdef/);
    expect(JSON.parse(chunks[0])).toEqual({ type: 'message', text: 'key [redacted] and [redacted]', nested: { k: '[redacted]' } });
  });

  it('replaces secrets inside strings and keys only, so a secret that is also JSON (true, a number) leaves the line valid', () => {
    const { chunks, writer } = capture(['true', '1234', 'api "key"\\x']);
    writer.write({ type: 'tool_result', call_id: 'c', tool: 't', output: 'it is true: 1234 api "key"\\x', truncated: true, is_error: false, size: 1234 });
    writer.write({ type: 'tool_call', call_id: 'c', tool: 't', input: { true: 'x', ok: [true, 'true'] } });
    expect(chunks.map((chunk) => JSON.parse(chunk))).toEqual([
      { type: 'tool_result', call_id: 'c', tool: 't', output: 'it is [redacted]: [redacted] [redacted]', truncated: true, is_error: false, size: 1234 },
      { type: 'tool_call', call_id: 'c', tool: 't', input: { '[redacted]': 'x', ok: [true, '[redacted]'] } },
    ]);
  });

  it('writes nothing after a terminal line', () => {
    const { chunks, writer } = capture();
    writer.end({ type: 'failed', error: 'deadline' });
    writer.write({ type: 'step' });
    writer.end({ type: 'completed', outcome: 'success' });
    expect(chunks.map((chunk) => JSON.parse(chunk).type)).toEqual(['failed']);
    expect(writer.isEnded).toBe(true);
  });
});

describe(truncateUtf8.name, () => {
  it('leaves text within the limit alone', () => {
    expect(truncateUtf8('hello', 5)).toEqual({ text: 'hello', truncated: false });
  });

  it('cuts to the byte limit without splitting a character', () => {
    // 'é' is 2 bytes: 3 bytes hold 'aé', 2 bytes only 'a'.
    expect(truncateUtf8('aéb', 3)).toEqual({ text: 'aé', truncated: true });
    expect(truncateUtf8('aéb', 2)).toEqual({ text: 'a', truncated: true });
    expect(truncateUtf8('😀😀', 5)).toEqual({ text: '😀', truncated: true });
  });
});

describe(truncateChars.name, () => {
  it('cuts to the character limit with an ellipsis', () => {
    expect(truncateChars('abcdef', 4)).toBe('abc…');
    expect(truncateChars('abcd', 4)).toBe('abcd');
  });
});

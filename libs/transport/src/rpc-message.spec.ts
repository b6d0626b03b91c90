import { RpcRequestEntry, decodeReply, decodeRequest, encodeReply, encodeRequest, fieldMap } from './rpc-message';
import { replyStreamKey, requestStreamKey, serviceOfPattern } from './stream-keys';

const entry: RpcRequestEntry = {
  id: 'req-1',
  pattern: 'agents.api-keys.create',
  data: { name: 'Zoë 🚀 日本語', nested: { list: [1, { deep: true }], nothing: null }, quote: 'a "b" \\ c' },
  metadata: { request_id: 'r-42' },
  replyTo: 'aas:rpc:reply:client-7',
  deadline: 1_700_000_000_123,
};

/** The encoded fields with one field's value replaced or (undefined) removed. */
function withField(name: string, value: string | undefined): string[] {
  const map = fieldMap(encodeRequest(entry));
  if (value === undefined) delete map[name];
  else map[name] = value;
  return Object.entries(map).flat();
}

describe('encodeRequest / decodeRequest', () => {
  it('round-trips an entry with nested and unicode data', () => {
    const fields = encodeRequest(entry);
    expect(fields.every((f) => typeof f === 'string')).toBe(true);
    expect(decodeRequest(fields)).toEqual(entry);
  });

  it('carries the reply format a client asks for, and none for a client that does not', () => {
    expect(decodeRequest(encodeRequest({ ...entry, replyFormat: 'fields' }))?.replyFormat).toBe('fields');
    expect(decodeRequest(encodeRequest(entry))).not.toHaveProperty('replyFormat');
    expect(decodeRequest(withField('format', 'something-else'))).not.toHaveProperty('replyFormat');
  });

  it('encodes undefined data as null', () => {
    expect(decodeRequest(encodeRequest({ ...entry, data: undefined }))?.data).toBeNull();
  });
});

describe('decodeRequest', () => {
  it.each(['id', 'pattern', 'reply', 'deadline'])('rejects an entry without %s', (name) => {
    expect(decodeRequest(withField(name, undefined))).toBeUndefined();
  });

  it.each(['soon', 'NaN', 'Infinity'])('rejects a non-numeric deadline %s', (deadline) => {
    expect(decodeRequest(withField('deadline', deadline))).toBeUndefined();
  });

  it('rejects malformed JSON data or metadata', () => {
    expect(decodeRequest(withField('data', '{"name":'))).toBeUndefined();
    expect(decodeRequest(withField('metadata', 'not json'))).toBeUndefined();
  });

  it('defaults missing data to null and missing metadata to {}', () => {
    const decoded = decodeRequest(['id', 'i', 'pattern', 'agents.x', 'reply', 'r', 'deadline', '5']);
    expect(decoded).toEqual({ id: 'i', pattern: 'agents.x', data: null, metadata: {}, replyTo: 'r', deadline: 5 });
  });
});

describe('fieldMap', () => {
  it('pairs keys with the values that follow them', () => {
    expect(fieldMap(['a', '1', 'b', '2'])).toEqual({ a: '1', b: '2' });
  });

  it('ignores a trailing key without a value', () => {
    expect(fieldMap(['a', '1', 'b'])).toEqual({ a: '1' });
  });
});

describe('serviceOfPattern', () => {
  it('takes the first segment of the pattern', () => {
    expect(serviceOfPattern('agents.api-keys.create')).toBe('agents');
    expect(serviceOfPattern('runs')).toBe('runs');
  });

  it.each(['', '.api-keys.create'])('throws for a pattern naming no service (%j)', (pattern) => {
    expect(() => serviceOfPattern(pattern)).toThrow(/names no service/);
  });
});

describe('requestStreamKey / replyStreamKey', () => {
  it('namespace the keys under the prefix and keep request and reply streams apart', () => {
    const request = requestStreamKey('tenant-a', 'agents');
    const reply = replyStreamKey('tenant-a', 'agents');
    expect(request.startsWith('tenant-a:')).toBe(true);
    expect(reply.startsWith('tenant-a:')).toBe(true);
    expect(request.endsWith('agents')).toBe(true);
    expect(reply.endsWith('agents')).toBe(true);
    expect(request).not.toBe(reply);
    expect(requestStreamKey('tenant-b', 'agents')).not.toBe(request);
  });
});

describe('encodeReply / decodeReply', () => {
  const problem = { type: 'urn:aas:problem:not-found', title: 'Not Found', status: 404, detail: 'Item 42 was not found' };
  const response = { name: 'Zoë 🚀', list: [1, null], quote: 'a "b"' };

  it.each([
    ['fields', { ...entry, replyFormat: 'fields' as const }],
    ['one envelope', entry],
  ])('round-trips a response as its JSON text (%s)', (_, request) => {
    const reply = decodeReply((encodeReply(request, { response })));
    expect(reply?.id).toBe(entry.id);
    expect(reply?.err).toBeUndefined();
    expect(JSON.parse(reply!.responseJson!)).toEqual(response);
  });

  it('sends the response JSON as its own field, untouched, when the client reads fields', () => {
    const fields = encodeReply({ ...entry, replyFormat: 'fields' }, { response });
    expect(fields).toEqual(['id', entry.id, 'response', JSON.stringify(response)]);
  });

  it.each([['fields' as const], [undefined]])('round-trips an error (format %s), and an empty response as null', (replyFormat) => {
    const request = { ...entry, replyFormat };
    expect(decodeReply((encodeReply(request, { err: problem, response: 'ignored' })))).toEqual({ id: entry.id, err: problem });
    expect(decodeReply((encodeReply(request, {})))?.responseJson).toBe('null');
  });

  it('ignores what is not a reply', () => {
    expect(decodeReply((['other', 'x']))).toBeUndefined();
    expect(decodeReply((['reply', '{"id":']))).toBeUndefined();
    expect(decodeReply((['id', 'i', 'err', 'not json']))).toBeUndefined();
  });
});

import { API_KEY_PREFIX } from '@aas/contracts';
import { SeededRandom } from './seeded-random';

/** A generated value and what it is, for the failure report. */
export interface Labeled<T> {
  label: string;
  value: T;
}

/**
 * Strings that are valid JSON strings but hostile in content: control
 * characters, broken UTF-16, direction overrides, SQL and LIKE
 * metacharacters, template and format syntax. Whether one is accepted depends
 * on the field; none may ever cause a 5xx.
 */
export const HOSTILE_STRINGS: readonly Labeled<string>[] = [
  { label: 'empty', value: '' },
  { label: 'nul inside', value: 'a\u0000b' },
  { label: 'only nul', value: '\u0000' },
  { label: 'lone high surrogate', value: '\ud800' },
  { label: 'lone low surrogate', value: 'x\udc00y' },
  { label: 'reversed surrogates', value: '\udc00\ud800' },
  { label: 'rtl override', value: '\u202egnp.exe\u202c' },
  { label: 'zero width and bom', value: '\u200b\u200d\ufeff' },
  { label: 'emoji sequences', value: '🤖👩‍👩‍👧‍👦🏳️‍🌈' },
  { label: 'combining marks', value: 'Z\u0334\u0321\u031b\u0349a\u0336l\u0337g\u0335o\u0336' },
  { label: 'max code point', value: '\u{10ffff}' },
  { label: 'noncharacters', value: '\ufffe\uffff' },
  { label: 'c0 controls and escape', value: '\u0001\u0007\b\u001b[31mred' },
  { label: 'c1 controls', value: '\u0085\u009b\u009f' },
  { label: 'line breaks', value: 'a\r\nb\nc\rd\u2028e\u2029' },
  { label: 'whitespace only', value: ' \t\u00a0 ' },
  { label: 'sql tautology', value: "' OR '1'='1" },
  { label: 'sql stacked drop', value: "'; DROP TABLE agents; --" },
  { label: 'sql union', value: '1/**/UNION/**/SELECT/**/NULL,NULL--' },
  { label: 'sql sleep', value: "1'); SELECT pg_sleep(30); --" },
  { label: 'sql cast', value: "x'::uuid::text" },
  { label: 'sql dollar quote', value: '$$; SELECT 1; $$' },
  { label: 'sql placeholder', value: '$1 :after ?' },
  { label: 'like wildcards', value: '%_%\\' },
  { label: 'backslashes', value: '\\\\\\' },
  { label: 'path traversal', value: '../../../../etc/passwd' },
  { label: 'encoded traversal', value: '..%2F..%2F%00' },
  { label: 'html', value: '<script>alert(1)</script>' },
  { label: 'template syntax', value: '${7*7}{{7*7}}#{7*7}<%= 7*7 %>' },
  { label: 'format specifiers', value: '%s%s%n%x%d' },
  { label: 'json in a string', value: '{"__proto__":{"admin":true}}' },
  { label: 'proto word', value: '__proto__' },
  { label: 'number-like', value: '1e309' },
  { label: 'crlf header injection', value: 'x\r\nSet-Cookie: a=b' },
  { label: 'cjk and rtl script', value: '日本語 עברית العربية' },
];

/** Ids for path parameters that can never name a resource. Each must be a 404 (or a 400 for a URL that cannot be decoded). */
export interface HostileId {
  label: string;
  /** Put into the path as is: already percent-encoded where it needs to be. */
  raw: string;
  /** The URL itself is malformed (bad percent-encoding): a 400 is as right as a 404. */
  malformedUrl?: boolean;
}

export const HOSTILE_IDS: readonly HostileId[] = [
  { label: 'encoded traversal', raw: '..%2F..' },
  { label: 'deep encoded traversal', raw: '..%2F..%2F..%2Fetc%2Fpasswd' },
  { label: 'double-encoded traversal', raw: '..%252F..%252F' },
  { label: 'dot dot', raw: '..' },
  { label: 'dot', raw: '.' },
  { label: 'encoded dots', raw: '%2e%2e' },
  { label: 'encoded backslash traversal', raw: '..%5C..%5C' },
  { label: 'nul', raw: '%00' },
  { label: 'nul after uuid', raw: '00000000-0000-4000-8000-000000000000%00' },
  { label: 'encoded slash', raw: 'a%2Fb' },
  { label: 'non-uuid', raw: 'not-a-uuid' },
  { label: 'integer', raw: '1' },
  { label: 'negative', raw: '-1' },
  { label: 'uuid without dashes', raw: '0000000000004000800000000000000' },
  { label: 'uuid with suffix', raw: '00000000-0000-4000-8000-000000000000x' },
  { label: 'nil uuid', raw: '00000000-0000-0000-0000-000000000000' },
  { label: 'max uuid', raw: 'ffffffff-ffff-ffff-ffff-ffffffffffff' },
  { label: 'uuid in braces', raw: '%7B00000000-0000-4000-8000-000000000000%7D' },
  { label: 'sql tautology', raw: "'%20OR%20'1'%3D'1" },
  { label: 'sql drop', raw: "1'%3B%20DROP%20TABLE%20runs%3B--" },
  { label: 'sql comment', raw: '1--' },
  { label: 'like wildcard', raw: '%25' },
  { label: 'very long id (2 000)', raw: 'a'.repeat(2000) },
  { label: 'long id (120)', raw: 'b'.repeat(120) },
  { label: 'id of 256', raw: 'c'.repeat(256) },
  { label: 'id of 257', raw: 'd'.repeat(257) },
  { label: 'encoded emoji', raw: '%F0%9F%A4%96' },
  { label: 'encoded rtl override', raw: '%E2%80%AEdi' },
  { label: 'overlong utf-8 slash', raw: '%C0%AF', malformedUrl: true },
  { label: 'invalid utf-8 byte', raw: '%FF%FE', malformedUrl: true },
  { label: 'lone surrogate utf-8', raw: '%ED%A0%80', malformedUrl: true },
  { label: 'bad percent-encoding', raw: '%zz', malformedUrl: true },
  { label: 'truncated percent-encoding', raw: 'abc%', malformedUrl: true },
  { label: 'semicolon', raw: 'x%3By' },
  { label: 'query-looking', raw: 'x%3Fa%3Db' },
  { label: 'hash-looking', raw: 'x%23y' },
  { label: 'space', raw: '%20' },
  { label: 'plus', raw: '+' },
  { label: 'template', raw: '%24%7B7*7%7D' },
  { label: 'proto', raw: '__proto__' },
  { label: 'constructor', raw: 'constructor' },
];

/** A query value and whether the API must refuse it ('invalid') or may take it ('maybe': e.g. `+5` is 5). */
export interface QueryValue {
  label: string;
  /** Already encoded for a query string; an array repeats the parameter. */
  raw: string | string[];
  verdict: 'invalid' | 'maybe';
}

/** Paging values for an integer query parameter; `min`/`max` come from its validators. */
export function pagingValues(min: number | undefined, max: number | undefined): QueryValue[] {
  const values: QueryValue[] = [
    { label: 'float', raw: '1.5', verdict: 'invalid' },
    { label: 'NaN', raw: 'NaN', verdict: 'invalid' },
    { label: 'Infinity', raw: 'Infinity', verdict: 'invalid' },
    { label: '-Infinity', raw: '-Infinity', verdict: 'invalid' },
    { label: 'overflowing exponent', raw: '1e400', verdict: 'invalid' },
    { label: 'beyond int64', raw: '99999999999999999999', verdict: 'invalid' },
    { label: 'int64 max + 1', raw: '9223372036854775808', verdict: 'invalid' },
    { label: 'int64 max', raw: '9223372036854775807', verdict: 'invalid' },
    { label: 'beyond safe integer', raw: '9007199254740993', verdict: 'invalid' },
    { label: 'int32 max + 1', raw: '2147483648', verdict: max !== undefined && max < 2147483648 ? 'invalid' : 'maybe' },
    { label: 'huge exponent', raw: '1e21', verdict: 'invalid' },
    { label: 'word', raw: 'abc', verdict: 'invalid' },
    { label: 'true', raw: 'true', verdict: 'invalid' },
    { label: 'null', raw: 'null', verdict: 'invalid' },
    { label: 'json array', raw: '%5B1%5D', verdict: 'invalid' },
    { label: 'comma list', raw: '1%2C2', verdict: 'invalid' },
    { label: 'arabic-indic digit', raw: '%D9%A1', verdict: 'invalid' },
    { label: 'fullwidth digit', raw: '%EF%BC%91', verdict: 'invalid' },
    { label: 'nul', raw: '%00', verdict: 'maybe' },
    { label: 'sql', raw: "1%20OR%201%3D1", verdict: 'invalid' },
    { label: 'repeated parameter', raw: ['1', '2'], verdict: 'invalid' },
    { label: 'empty', raw: '', verdict: 'maybe' },
    { label: 'blank', raw: '%20', verdict: 'maybe' },
    { label: 'hex', raw: '0x10', verdict: 'maybe' },
    { label: 'plus sign', raw: '%2B5', verdict: 'maybe' },
    { label: 'leading zeros', raw: '0005', verdict: 'maybe' },
    { label: 'zero', raw: '0', verdict: 'maybe' },
    { label: 'one', raw: '1', verdict: 'maybe' },
    { label: 'negative zero', raw: '-0', verdict: 'maybe' },
  ];
  if (min !== undefined) {
    values.push({ label: 'below minimum', raw: String(min - 1), verdict: 'invalid' });
    values.push({ label: 'far below minimum', raw: '-2147483649', verdict: 'invalid' });
    values.push({ label: 'minimum', raw: String(min), verdict: 'maybe' });
  }
  if (max !== undefined) {
    values.push({ label: 'maximum + 1', raw: String(max + 1), verdict: 'invalid' });
    values.push({ label: 'maximum', raw: String(max), verdict: 'maybe' });
  }
  return values;
}

/** Cursors a client could forge; the API only accepts its own. */
export function forgedCursors(): QueryValue[] {
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
  const cursor = (s: unknown) => b64(JSON.stringify({ v: 1, s }));
  return [
    { label: 'garbage base64', raw: 'ZZZZ%2F%2F%2F%2F', verdict: 'invalid' },
    { label: 'not base64', raw: '***', verdict: 'invalid' },
    { label: 'base64 of junk bytes', raw: Buffer.from([0xff, 0xfe, 0x00, 0x80]).toString('base64url'), verdict: 'invalid' },
    { label: 'base64 of non-json', raw: b64('hello'), verdict: 'invalid' },
    { label: 'base64 of json array', raw: b64('[1,2]'), verdict: 'invalid' },
    { label: 'base64 of null', raw: b64('null'), verdict: 'invalid' },
    { label: 'wrong version', raw: b64(JSON.stringify({ v: 2, s: '1' })), verdict: 'invalid' },
    { label: 'numeric sequence', raw: cursor(1), verdict: 'invalid' },
    { label: 'negative sequence', raw: cursor('-1'), verdict: 'invalid' },
    { label: 'sql in sequence', raw: cursor("1 OR 1=1"), verdict: 'invalid' },
    { label: 'sequence beyond int64 (19 digits)', raw: cursor('9999999999999999999'), verdict: 'invalid' },
    { label: 'sequence int64 max + 1', raw: cursor('9223372036854775808'), verdict: 'invalid' },
    { label: 'sequence of 20 digits', raw: cursor('99999999999999999999'), verdict: 'invalid' },
    { label: 'sequence int64 max', raw: cursor('9223372036854775807'), verdict: 'maybe' },
    { label: 'sequence zero', raw: cursor('0'), verdict: 'maybe' },
    { label: 'proto pollution', raw: b64('{"__proto__":{"v":1,"s":"1"}}'), verdict: 'invalid' },
    { label: 'deeply nested json', raw: b64('['.repeat(300) + ']'.repeat(300)), verdict: 'invalid' },
    { label: 'empty', raw: '', verdict: 'invalid' },
    { label: 'over 512 characters', raw: 'A'.repeat(600), verdict: 'invalid' },
    { label: 'padding only', raw: '%3D%3D%3D%3D', verdict: 'invalid' },
  ];
}

/** x-api-key values that are not a key of anyone: each must be a 401 Problem. */
export function garbageApiKeys(rng: SeededRandom, realKey: string): Labeled<string>[] {
  const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const body = rng.string(30, base62);
  return [
    { label: 'random word', value: rng.string(rng.int(1, 40), base62) },
    { label: 'our prefix, bad checksum', value: API_KEY_PREFIX + body + 'AAAAAA' },
    { label: 'our prefix, latin-1 checksum', value: API_KEY_PREFIX + body + '\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9' },
    { label: 'our prefix, latin-1 body', value: API_KEY_PREFIX + '\u00ff'.repeat(30) + 'AAAAAA' },
    { label: 'our prefix, too short', value: API_KEY_PREFIX },
    { label: 'our prefix, too long', value: API_KEY_PREFIX + body + body },
    { label: 'real key plus a character', value: realKey + 'x' },
    { label: 'real key minus a character', value: realKey.slice(0, -1) },
    { label: 'real key upper-cased', value: realKey.toUpperCase() === realKey ? realKey + 'X' : realKey.toUpperCase() },
    { label: 'real key with spaces', value: ` ${realKey}x ` },
    { label: 'latin-1 bytes', value: '\u00ff\u00fe\u00e9\u00a0\u0080' },
    { label: 'sql', value: "' OR '1'='1" },
    { label: 'long (8 KiB)', value: 'k'.repeat(8192) },
    { label: 'tab inside', value: 'a\tb' },
    { label: 'jwt-looking', value: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.' },
  ];
}

/** Idempotency-Key values; the API takes 1-255 visible ASCII characters. */
export function idempotencyKeys(rng: SeededRandom): Labeled<string>[] {
  const visible = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&*+-.^_|~';
  return [
    { label: 'valid random', value: rng.string(rng.int(1, 64), visible) },
    { label: '255 characters', value: 'i'.repeat(255) },
    { label: '256 characters', value: 'i'.repeat(256) },
    { label: 'long (4 KiB)', value: 'i'.repeat(4096) },
    { label: 'space inside', value: 'a b' },
    { label: 'latin-1', value: 'cl\u00e9' },
    { label: 'tab inside', value: 'a\tb' },
    { label: 'sql', value: "'%20OR%20'1'='1" },
    { label: 'empty', value: '' },
  ];
}

/** Last-Event-ID values; the stream takes the index of an event it sent (digits). */
export const LAST_EVENT_IDS: readonly Labeled<string>[] = [
  { label: 'negative', value: '-1' },
  { label: 'float', value: '1.5' },
  { label: 'word', value: 'abc' },
  { label: '16 digits', value: '9'.repeat(16) },
  { label: 'beyond int64', value: '99999999999999999999' },
  { label: 'exponent', value: '1e3' },
  { label: 'latin-1', value: '\u00e9' },
  { label: 'sql', value: "0 OR 1=1" },
  { label: 'hex', value: '0x1' },
];

/** Wrong JSON types for a field of a given kind. */
export function wrongTypes(kind: 'string' | 'boolean' | 'integer' | 'array' | 'object' | 'json'): Labeled<unknown>[] {
  // Any JSON value is of the right type; only null (or nothing) is refused.
  if (kind === 'json') return [];
  const common: Labeled<unknown>[] = [
    { label: 'object', value: { a: 1 } },
    { label: 'empty object', value: {} },
  ];
  switch (kind) {
    case 'string':
      return [
        ...common,
        { label: 'integer', value: 42 },
        { label: 'negative float', value: -1.5 },
        { label: 'huge number', value: 1e308 },
        { label: 'true', value: true },
        { label: 'false', value: false },
        { label: 'array of string', value: ['a'] },
        { label: 'empty array', value: [] },
      ];
    case 'boolean':
      return [
        ...common,
        { label: 'string true', value: 'true' },
        { label: 'string false', value: 'false' },
        { label: 'one', value: 1 },
        { label: 'zero', value: 0 },
        { label: 'empty string', value: '' },
        { label: 'array', value: [true] },
      ];
    case 'integer':
      return [
        ...common,
        { label: 'numeric string', value: '1' },
        { label: 'float', value: 1.5 },
        { label: 'true', value: true },
        { label: 'array', value: [1] },
        { label: 'float beyond int64', value: 1.5e300 },
        { label: 'exponent string', value: '1e3' },
        { label: 'NaN string', value: 'NaN' },
      ];
    case 'array':
      return [
        ...common,
        { label: 'string', value: 'a' },
        { label: 'integer', value: 1 },
        { label: 'true', value: true },
        { label: 'array-like object', value: { length: 1, 0: 'a' } },
      ];
    case 'object':
      return [
        { label: 'string', value: 'a' },
        { label: 'integer', value: 1 },
        { label: 'true', value: true },
        { label: 'array', value: [] },
      ];
  }
}

/**
 * A string of `length` characters (code points, as the validators count them)
 * drawn from a hostile alphabet: astral, RTL, zero-width, quotes, LIKE
 * wildcards, and U+0000 unless `wellFormed`. Long strings repeat a random
 * 1 024-character block, which keeps generation cheap.
 */
export function hostileTextOfLength(rng: SeededRandom, length: number, wellFormed = false): string {
  const alphabet = ['a', 'Z', '0', "'", '"', '\\', '%', '_', '\u202e', '\u200b', 'é', '日', '🤖', '\u{10ffff}', ';', '-', ' '];
  if (!wellFormed) alphabet.push('\u0000');
  const draw = (n: number) => {
    let out = '';
    for (let i = 0; i < n; i++) out += rng.pick(alphabet);
    return out;
  };
  if (length <= 4096) return draw(length);
  const block = draw(1024);
  return block.repeat(Math.floor(length / 1024)) + draw(length % 1024);
}

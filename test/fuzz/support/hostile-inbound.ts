import { FuzzCase } from './case-generator';
import { RawRequest } from './raw-http';

/** No answer to one of these may take longer: a stall (a template bomb, a quadratic parse) fails the case. */
const MAX_MS = 5_000;
const JSON_TYPE = 'application/json';

const nested = (levels: number, open: string, close: string, inner = '1') => `${open.repeat(levels)}${inner}${close.repeat(levels)}`;

/**
 * Hostile bodies to a real inbound endpoint (its true URL, so past the token check, where the body rules
 * apply): NUL and unpaired surrogates as escapes in values and keys, deep nesting, numbers JSON cannot
 * carry, bare values (taken: an endpoint takes any JSON value), huge strings and objects, broken JSON,
 * hostile headers. Every answer must be the status given: a 413 where the body is over the gateway's limit
 * or over the payload a run keeps (TRIGGER_PAYLOAD_MAX_BYTES), and a large body under both is taken.
 */
export function hostileInboundBodies(path: string, bodyLimitBytes: number, payloadMaxBytes: number): FuzzCase[] {
  const big = (bytes: number) => JSON.stringify({ s: 'x'.repeat(bytes) });
  const keys = (count: number) => JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i])));
  // Taken whole, or refused whole when a run could not keep it.
  const kept = (body: string): [string, number[]] => [body, [Buffer.byteLength(body) > payloadMaxBytes ? 413 : 202]];
  const cases: Array<[string, string | Buffer, number[], Record<string, string>?]> = [
    ['NUL escape in a value', '{"a":"x\\u0000y"}', [400]],
    ['NUL escape alone', '"\\u0000"', [400]],
    ['NUL escape in a key', '{"\\u0000":1}', [400]],
    ['lone high surrogate escape', '{"a":"\\ud800"}', [400]],
    ['lone low surrogate escape in an array', '[1,"\\udfff"]', [400]],
    ['reversed surrogate escapes', '{"a":"\\udc00\\ud800"}', [400]],
    ['lone surrogate escape in a deep key', '{"a":{"b":{"\\udbff":true}}}', [400]],
    ['a pair of surrogate escapes (an emoji)', '{"a":"\\ud83d\\ude00"}', [202]],
    ['UTF-8 bytes of a surrogate (read as U+FFFD)', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]), [202]],
    ['objects 32 deep', nested(31, '{"a":', '}', '{}'), [202]],
    ['objects 33 deep', nested(32, '{"a":', '}', '{}'), [400]],
    ['arrays 1,000 deep', nested(1_000, '[', ']'), [400]],
    ['arrays 100,000 deep', nested(100_000, '[', ']'), [400]],
    ['1e400', '{"n":1e400}', [400]],
    ['-1e400 bare', '-1e400', [400]],
    ['a 400-digit integer', `{"n":1${'0'.repeat(400)}}`, [400]],
    ['the largest double', '{"n":1.7976931348623157e308}', [202]],
    ['an integer beyond 2^53', '{"n":123456789012345678901234567890}', [202]],
    ['1e-400 (reads as 0)', '{"n":1e-400}', [202]],
    ['an array', '[1,2,3]', [202]],
    ['a string', '"just text"', [202]],
    ['a number', '42', [202]],
    ['null', 'null', [202]],
    ['true', 'true', [202]],
    ['an empty object', '{}', [202]],
    ['a string just under the payload a run keeps', ...kept(big(payloadMaxBytes - 64))],
    ['a string just over the payload a run keeps', ...kept(big(payloadMaxBytes))],
    ['a string of half a MiB', ...kept(big(512 * 1024))],
    ['a string just under the body limit', ...kept(big(bodyLimitBytes - 64))],
    ['a string over the body limit', big(bodyLimitBytes + 64), [413]],
    ['15,000 keys', ...kept(keys(15_000))],
    ['50,000 keys', ...kept(keys(50_000))],
    ['a key of 100,000 characters', JSON.stringify({ ['k'.repeat(100_000)]: 1 }), [202]],
    ['__proto__ key', '{"__proto__":{"polluted":true}}', [400]],
    ['truncated JSON', '{"a":', [400]],
    ['empty body', '', [400]],
    ['a delivery id of 201 characters', '{}', [400], { 'idempotency-key': 'd'.repeat(201) }],
    ['latin-1 bytes in a header', '{}', [202], { 'x-fuzz': '\u00ff\u00fe\u00e9' }],
    ['a signature-looking header', '{}', [202], { 'x-hub-signature-256': 'sha256=00', 'x-gitlab-token': 'glpat-fuzz' }],
  ];
  return cases.map(([mutation, body, expected, headers]) => fuzzCase('POST /hooks/{trigger_id}/{token} (real)', 'inbound-body', mutation, expected, () => ({
    method: 'POST',
    path,
    headers: { 'content-type': JSON_TYPE, ...headers },
    body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
  })));
}

/**
 * Hostile message_template values at trigger creation: template bombs (taken: they render on a budget),
 * the rules (unclosed tags, partials, delimiter changes, tags over 200 characters: 400), text rules, and
 * the shapes that made mustache's own parser quadratic. 201, 400, or the quota's 422.
 */
export function hostileTemplates(path: string, key: string): FuzzCase[] {
  const bomb = (levels: number) => nested(levels, '{{#payload.a}}', '{{/payload.a}}', 'x');
  const templates: Array<[string, string, number[]]> = [
    ['3 nested sections over one array', bomb(3), [201]],
    ['350 nested sections (10,000 characters)', bomb(350), [201]],
    ['830 nested short sections', `{{#payload}}${nested(830, '{{#a}}', '{{/a}}', 'x')}{{/payload}}`, [201]],
    ['10,000 names', '{{a}}'.repeat(2_000), [201]],
    ['10,001 characters', 'x'.repeat(10_001), [400]],
    ['an unclosed tag, then 9,996 spaces', `{{a${' '.repeat(9_996)}`, [400]],
    ['a tag of 9,990 spaces', `{{a${' '.repeat(9_990)}x}}`, [400]],
    ['a triple mustache of 9,990 spaces', `{{{a${' '.repeat(9_990)}x}}}`, [400]],
    ['a 201-character tag', `{{${'a'.repeat(197)}}}`, [400]],
    ['a 200-character tag', `{{${'a'.repeat(196)}}}`, [201]],
    ['a partial', '{{> other}}', [400]],
    ['a partial after spaces', '{{  >other}}', [400]],
    ['a delimiter change', '{{=<% %>=}}<% a %>', [400]],
    ['an unclosed section', '{{#payload.a}} open', [400]],
    ['a stray closing tag', 'x {{/payload.a}}', [400]],
    ['crossed sections', '{{#a}}{{#b}}{{/a}}{{/b}}', [400]],
    ['a lone {{{', '{{{a}}', [201, 400]],
    ['NUL', 'a\u0000b', [400]],
    ['a lone surrogate', 'a\ud800b', [400]],
    ['a comment', '{{! nothing }}x', [201]],
    ['names that reach prototypes', '{{constructor}}{{payload.__proto__}}{{payload.constructor.name}}{{#payload.toString}}x{{/payload.toString}}', [201]],
    ['an implicit iterator only', '{{#payload}}{{.}}{{/payload}}', [201]],
    ['an empty name', '{{}}', [201, 400]],
  ];
  return templates.map(([mutation, template, expected]) => fuzzCase('POST /v1/agents/{agent_id}/triggers (templates)', 'template', mutation, expected, () => ({
    method: 'POST',
    path,
    headers: { 'content-type': JSON_TYPE, 'x-api-key': key },
    body: Buffer.from(JSON.stringify({ kind: 'webhook', message_template: template }), 'utf8'),
  })));
}

function fuzzCase(op: string, category: string, mutation: string, expected: number[], build: () => RawRequest): FuzzCase {
  return { op, category, mutation, expected, maxMs: MAX_MS, build };
}

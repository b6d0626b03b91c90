import { ApiOperation, labelOf } from './api-operations';
import { FieldRule, rulesOf, stringAccepted, validatorLength } from './dto-rules';
import {
  HOSTILE_IDS,
  HOSTILE_STRINGS,
  LAST_EVENT_IDS,
  QueryValue,
  forgedCursors,
  garbageApiKeys,
  hostileTextOfLength,
  idempotencyKeys,
  pagingValues,
  wrongTypes,
} from './hostile-values';
import { RawRequest } from './raw-http';
import { SeededRandom } from './seeded-random';

/** One generated request and the statuses that are a right answer to it (429 is always allowed on top). */
export interface FuzzCase {
  op: string;
  category: string;
  mutation: string;
  expected: readonly number[];
  /** The longest the answer may take (nothing hostile may stall a service); unchecked when absent. */
  maxMs?: number;
  build(): RawRequest;
}

/** What the fuzz runs against: real resources of the calling user, and a second user. */
export interface Fixtures {
  key: string;
  /** The key id of `key`, which must never be revoked by the fuzz. */
  keyId: string;
  otherUserKey: string;
  /** A valid id for each path parameter name. */
  ids: Record<string, string>;
  /**
   * The agent whose id goes into a path: webhooks sit on an agent that never
   * runs (so no delivery is attempted), instructions on one whose plan steps
   * do not slow the runs the fuzz starts.
   */
  agentFor(pathTemplate: string): string;
  /** A request body the API accepts, per request-body schema name. */
  validBodies: Record<string, () => Record<string, unknown>>;
  /**
   * What a valid request answers, by operation label, where the fixtures cannot make it succeed
   * (console sign-in: there is no session, setup token or password to give).
   */
  outcomes?: Record<string, number[]>;
}

export interface GeneratorOptions {
  bodyLimitBytes: number;
  /** At most this many cases per operation, sampled from its catalogue by category. */
  maxCasesPerOperation: number;
  /** Cases of random values per operation, on top of the fixed catalogue (before sampling). */
  randomCasesPerOperation: number;
  /** The request-body DTO classes, by schema name (for their validators). */
  dtoClasses: Record<string, Function>;
  /** The query DTO classes (matched to an operation by their property names). */
  queryClasses: Function[];
}

/** Path parameters with no resource behind them in the fixtures: a random UUID (a 404) stands in. */
// An inbound URL's token is never the real one: each case would start a run; the fuzz checks what unknown URLs answer.
// No fixture run waits for input, so an input request's id names none; nor is there a fixture bulk action.
const UNFIXTURED_PARAMS = new Set(['delivery_id', 'key_id', 'token', 'request_id', 'bulk_action_id']);

const JSON_TYPE = 'application/json';

/** Values of every JSON type, for a field that takes any (FieldRule kind `json`). */
const JSON_VALUES: [string, unknown][] = [
  ['a string', 'approve'],
  ['a number', 42],
  ['false', false],
  ['an empty object', {}],
  ['an object', { amount: 1, nested: { deep: [1, 2] } }],
  ['an empty array', []],
  ['an array', ['a', 1, null]],
];

/**
 * The catalogue of hostile requests for one operation: every category the
 * issue names (bad JSON, wrong types, huge strings, odd unicode, path
 * traversal, SQL metacharacters, paging values, headers, unknown parameters),
 * each case with the statuses that are a right answer to it.
 */
export class OperationCases {
  private readonly cases: FuzzCase[] = [];
  private readonly label: string;
  private readonly destructive: boolean;
  private readonly bodyRules: Map<string, FieldRule> | undefined;
  private readonly queryRules: Map<string, FieldRule>;

  constructor(
    private readonly op: ApiOperation,
    private readonly fixtures: Fixtures,
    private readonly rng: SeededRandom,
    private readonly options: GeneratorOptions,
  ) {
    this.label = labelOf(op);
    // A DELETE is never sent with the ids of a fixture: it would remove what the other cases need.
    this.destructive = op.method === 'DELETE';
    this.bodyRules = op.bodySchema ? rulesOf(this.dtoClass(op.bodySchema)) : undefined;
    this.queryRules = this.queryRulesOf(op);
  }

  generate(): FuzzCase[] {
    this.authCases();
    this.pathIdCases();
    this.otherTenantCases();
    this.queryCases();
    this.bodySyntaxCases();
    this.bodyFieldCases();
    this.headerCases();
    this.randomCases();
    return this.sampled();
  }

  // ---- expectations -------------------------------------------------------

  /** What the operation answers to a valid request at its base path. */
  private baseOutcome(): number[] {
    return this.fixtures.outcomes?.[this.label] ?? (this.usesRandomIds() ? [404] : this.op.successes);
  }

  /** What a request with a missing or bad x-api-key answers: a 401, or, where no key is needed, what it would anyway. */
  private badKeyOutcome(): number[] {
    return this.op.keyAuthenticated ? [401] : this.baseOutcome();
  }

  /** A mutated but possibly still valid input: the base outcome, a 400, or any problem the operation documents. */
  private mayPass(): number[] {
    const problems = this.op.documented.filter((s) => s >= 400 && s < 500);
    return unique([...this.baseOutcome(), 400, ...problems]);
  }

  /**
   * A DELETE of a collection by filter (DELETE /v1/runs) is never sent without an agent filter: it would delete the
   * fixtures' runs. A random agent matches none; a case about filter_agent_id itself sends its own.
   */
  private harmlessScope(query: string | undefined): string | undefined {
    if (!this.destructive || this.op.pathParams.length > 0 || (query ?? '').includes('filter_agent_id')) return undefined;
    return `filter_agent_id=${this.rng.uuid()}`;
  }

  private usesRandomIds(): boolean {
    return this.op.pathParams.some((p) => this.destructive || UNFIXTURED_PARAMS.has(p));
  }

  // ---- building requests --------------------------------------------------

  private pathWith(overrides: Record<string, string> = {}): string {
    const ids = this.fixtures.ids;
    return this.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (name in overrides) return overrides[name];
      if (this.destructive || UNFIXTURED_PARAMS.has(name)) return this.rng.uuid();
      const id = name === 'agent_id' ? this.fixtures.agentFor(this.op.path) : ids[name];
      if (id === undefined) throw new Error(`${this.label}: no fixture for path parameter ${name}; add one to the fuzz fixtures`);
      return encodeURIComponent(id);
    });
  }

  private validBody(): Record<string, unknown> | undefined {
    if (!this.op.bodySchema) return undefined;
    const make = this.fixtures.validBodies[this.op.bodySchema];
    if (!make) throw new Error(`${this.label}: no valid example for request body ${this.op.bodySchema}; add one to the fuzz fixtures`);
    return make();
  }

  private request(
    parts: { path?: string; query?: string; headers?: Record<string, string>; body?: Buffer | null; key?: string | null; method?: string } = {},
  ): RawRequest {
    const headers: Record<string, string> = {};
    const key = parts.key === undefined ? this.fixtures.key : parts.key;
    if (key !== null) headers['x-api-key'] = key;
    let body: Buffer | undefined;
    if (parts.body === undefined) {
      const valid = this.validBody();
      if (valid !== undefined) body = Buffer.from(JSON.stringify(valid));
    } else if (parts.body !== null) {
      body = parts.body;
    }
    if (body !== undefined) headers['content-type'] = JSON_TYPE;
    Object.assign(headers, parts.headers);
    for (const [name, value] of Object.entries(headers)) if (value === undefined) delete headers[name];
    const query = [this.harmlessScope(parts.query), parts.query].filter(Boolean).join('&');
    const path = (parts.path ?? this.pathWith()) + (query ? `?${query}` : '');
    return { method: parts.method ?? this.op.method, path, headers, body };
  }

  /** Requests are built when sent (`build`), so the big ones of cases left out of the sample never are. */
  private add(category: string, mutation: string, build: () => RawRequest, expected: readonly number[]): void {
    const limit = this.options.bodyLimitBytes;
    const fuzzCase: FuzzCase = {
      op: this.label,
      category,
      mutation,
      expected,
      build: () => {
        const request = build();
        // Whatever else is wrong with it, a body over the limit is refused first.
        if (request.body !== undefined && request.body.length > limit) fuzzCase.expected = [413];
        return request;
      },
    };
    this.cases.push(fuzzCase);
  }

  // ---- categories ---------------------------------------------------------

  private authCases(): void {
    const refused = this.badKeyOutcome();
    this.add('auth', 'no x-api-key', () => this.request({ key: null }), refused);
    this.add('auth', 'Bearer token instead of x-api-key', () => this.request({ key: null, headers: { authorization: `Bearer ${this.fixtures.key}` } }), refused);
    this.add('auth', 'empty x-api-key', () => this.request({ key: '' }), refused);
    for (const garbage of garbageApiKeys(this.rng, this.fixtures.key)) {
      this.add('auth', `x-api-key: ${garbage.label}`, () => this.request({ key: garbage.value }), refused);
    }
    this.add('auth', 'x-api-key twice', () => this.request({ key: null, headers: { 'x-api-key': `${this.fixtures.key}, ${this.fixtures.key}` } }), refused);
  }

  private pathIdCases(): void {
    for (const param of this.op.pathParams) {
      for (const id of HOSTILE_IDS) {
        this.add('path-id', `${param}: ${id.label}`, () => this.request({ path: this.pathWith({ [param]: id.raw }) }), id.malformedUrl ? [400, 404] : [404]);
      }
      // A real id of another kind of resource.
      const other = Object.entries(this.fixtures.ids).find(([name]) => name !== param);
      if (other) this.add('path-id', `${param}: the ${other[0]} of a fixture`, () => this.request({ path: this.pathWith({ [param]: other[1] }) }), [404]);
      this.add('path-id', `${param}: random uuid`, () => this.request({ path: this.pathWith({ [param]: this.rng.uuid() }) }), [404]);
      this.add('path-id', `${param}: upper-case random uuid`, () => this.request({ path: this.pathWith({ [param]: this.rng.uuid().toUpperCase() }) }), [404]);
    }
    if (this.op.pathParams.length > 0) {
      this.add('path-id', 'trailing slash', () => this.request({ path: `${this.pathWith()}/` }), [404, ...this.baseOutcome()]);
      this.add('path-id', 'double slash', () => this.request({ path: this.pathWith().replace(/\/([^/]+)$/, '//$1') }), [404]);
    }
    // A method the path does not have, and one no route has.
    const method = ['PATCH', 'PUT', 'POST', 'DELETE', 'GET'].find((m) => !this.op.pathMethods.includes(m));
    if (method) this.add('method', `${method} on a path without it`, () => this.request({ method }), [404, 405]);
    this.add('method', 'PROPFIND', () => this.request({ method: 'PROPFIND' }), [400, 404, 405]);
  }

  /** Another user's key on this user's real resources: the resource does not exist for them. */
  private otherTenantCases(): void {
    if (this.op.pathParams.length === 0) return;
    const real: Record<string, string> = { ...this.fixtures.ids, key_id: this.fixtures.keyId };
    // Every id real (also on a DELETE: if isolation failed, the 2xx fails this test).
    const path = this.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (name === 'agent_id') return this.fixtures.agentFor(this.op.path);
      return encodeURIComponent(real[name] ?? this.rng.uuid());
    });
    this.add('tenant', "another user's resource", () => this.request({ key: this.fixtures.otherUserKey, path }), [404]);
  }

  private queryCases(): void {
    const declared = this.op.queryParams.map((p) => p.name);
    const unknownExpected = declared.length > 0 ? [400] : this.mayPass();
    this.add('query', 'unknown parameter', () => this.request({ query: 'fuzz=1' }), unknownExpected);
    // The query parser drops a __proto__ key, so it may be ignored rather than refused.
    this.add('query', 'proto parameter', () => this.request({ query: '__proto__=1' }), [...unknownExpected, ...this.mayPass()]);
    this.add('query', 'bracket parameter', () => this.request({ query: 'constructor%5Bprototype%5D%5Bx%5D=1' }), unknownExpected);
    this.add('query', 'parameter without value', () => this.request({ query: 'fuzz' }), unknownExpected);
    this.add('query', 'ampersands only', () => this.request({ query: '&&&=&' }), [...unknownExpected, ...this.mayPass()]);
    this.add('query', 'very long query (6 000)', () => this.request({ query: `fuzz=${'q'.repeat(6000)}` }), unknownExpected);
    for (const name of declared) {
      const rule = this.queryRules.get(name);
      if (!rule) throw new Error(`${this.label}: query parameter ${name} has no validators`);
      for (const value of this.queryValues(name, rule)) {
        const query = (Array.isArray(value.raw) ? value.raw : [value.raw]).map((v) => `${name}=${v}`).join('&');
        this.add('query', `${name}: ${value.label}`, () => this.request({ query }), value.verdict === 'invalid' ? [400] : this.mayPass());
      }
    }
  }

  private queryValues(name: string, rule: FieldRule): QueryValue[] {
    if (rule.kind === 'integer') return pagingValues(rule.min, rule.max);
    if (name === 'cursor') return forgedCursors();
    const values: QueryValue[] = [{ label: 'repeated parameter', raw: ['a', 'b'], verdict: 'invalid' }];
    const strings = [...HOSTILE_STRINGS];
    if (rule.maxLength !== undefined) {
      strings.push({ label: 'maximum length', value: hostileTextOfLength(this.rng, rule.maxLength) });
      strings.push({ label: 'well-formed maximum length', value: hostileTextOfLength(this.rng, rule.maxLength, true) });
      strings.push({ label: 'maximum length + 1', value: 'x'.repeat(rule.maxLength + 1) });
    }
    if (rule.oneOf) for (const v of rule.oneOf) strings.push({ label: `allowed ${String(v)}`, value: String(v) }, { label: `${String(v)} upper-cased`, value: String(v).toUpperCase() });
    if (rule.iso8601) {
      for (const date of [
        '2024-01-01T00:00:00Z',
        '2024-02-30T00:00:00Z',
        '2024-13-01T00:00:00Z',
        '0000-01-01T00:00:00Z',
        '9999-12-31T23:59:59.999Z',
        '+275760-09-13T00:00:00Z',
        '-000001-01-01T00:00:00Z',
        '2024-01-01T00:00:00+99:99',
        '2024-01-01',
        '20240101T000000Z',
        '1e10',
      ]) strings.push({ label: `date ${date}`, value: date });
    }
    for (const s of strings) {
      // A lone surrogate cannot be percent-encoded: it is sent as the bytes of one, which decode to U+FFFD.
      const accepted = stringAccepted(rule, s.value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
      values.push({ label: s.label, raw: encodeQuery(s.value), verdict: accepted === false ? 'invalid' : 'maybe' });
    }
    return values;
  }

  private bodySyntaxCases(): void {
    if (!['POST', 'PUT', 'PATCH'].includes(this.op.method)) return;
    const valid = JSON.stringify(this.validBody() ?? {});
    const text = (s: string) => Buffer.from(s, 'utf8');
    const malformed: [string, string][] = [
      ['truncated', valid.slice(0, Math.max(1, this.rng.int(1, valid.length - 1)))],
      ['truncated after a key', '{"name":'],
      ['only an opening brace', '{'],
      ['trailing garbage', `${valid}xyz`],
      ['two documents', `${valid}${valid}`],
      ['single quotes', "{'a': 'b'}"],
      ['unquoted key', '{a: 1}'],
      ['trailing comma', '{"a": 1,}'],
      ['comment', '{/* c */}'],
      ['NaN literal', '{"a": NaN}'],
      ['Infinity literal', '{"a": Infinity}'],
      ['undefined literal', '{"a": undefined}'],
      ['bad escape', '{"a": "\\x41"}'],
      ['unterminated string', '{"a": "b'],
      ['whitespace only', '   \n\t '],
      ['raw control character in a string', '{"a": "x\u0001y"}'],
      ['deep array root (100 000)', '['.repeat(100_000) + ']'.repeat(100_000)],
    ];
    for (const [label, body] of malformed) this.add('bad-json', label, () => this.request({ body: text(body) }), [400]);
    // Valid JSON (1e400 parses as Infinity) in a field the operation does not have.
    this.add('bad-json', 'huge number literal', () => this.request({ body: text(`{"fuzz_number": 1${'0'.repeat(400)}}`) }), this.bodyRules ? [400] : this.mayPass());
    this.add('bad-json', 'empty body with JSON content type', () => this.request({ body: Buffer.alloc(0) }), [400, ...this.emptyBodyOutcome()]);
    for (const [label, body] of [['array', '[]'], ['array of the valid body', `[${valid}]`], ['null', 'null'], ['number', '42'], ['string', '"x"'], ['true', 'true']]) {
      // An operation whose body schema is not an object (an inbound endpoint takes any JSON) may take them.
      this.add('bad-json', `${label} instead of an object`, () => this.request({ body: text(body) }), this.op.bodySchema ? [400] : [400, ...this.baseOutcome()]);
    }
    for (const [label, type, expected] of [
      ['text/plain', 'text/plain', [415]],
      ['form', 'application/x-www-form-urlencoded', [415]],
      ['multipart', 'multipart/form-data; boundary=x', [400, 415]],
      ['xml', 'application/xml', [415]],
      ['json-lookalike', 'application/jsonx', [415]],
      // The charset parameter is ignored (the body is read as UTF-8): taking it is as right as refusing it.
      ['json with utf-16 charset', 'application/json; charset=utf-16le', [415, ...this.mayPass()]],
      ['garbage content type', '\u00ff/\u00fe', [400, 415]],
      ['upper-case json', 'APPLICATION/JSON', this.mayPass()],
    ] as [string, string, number[]][]) {
      this.add('media-type', label, () => this.request({ body: text(valid), headers: { 'content-type': type } }), expected);
    }
    this.add('media-type', 'no content type', () => {
      const noType = this.request({ body: text(valid) });
      delete noType.headers['content-type'];
      return noType;
    }, [400, 415]);
    // Sizes: over the limit (Content-Length and chunked), and a valid body padded to just under it.
    this.add('size', '2 MB body', () => this.request({ body: Buffer.alloc(2 * 1024 * 1024, 0x20) }), [413]);
    this.add('size', 'limit + 1 byte', () => this.request({ body: Buffer.concat([text(valid), Buffer.alloc(this.options.bodyLimitBytes + 1 - valid.length, 0x20)]) }), [413]);
    this.add('size', '2 MB chunked body', () => ({ ...this.request({ body: null, headers: { 'content-type': JSON_TYPE } }), chunkedBytes: 2 * 1024 * 1024 }), [413]);
    const padded = () => Buffer.concat([text(valid), Buffer.alloc(this.options.bodyLimitBytes - valid.length - 16, 0x20)]);
    this.add('size', 'valid body padded to the limit', () => this.request({ body: padded() }), this.mayPass());
    // Deep nesting, in an unknown field and as a known field's value.
    for (const depth of [64, 1_000, 10_000, 100_000]) {
      const deep = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      this.add('deep-json', `unknown field nested ${depth} deep`, () => this.request({ body: text(`{"fuzz_nested":${deep}}`) }), [400]);
      const field = this.firstField();
      if (field) this.add('deep-json', `${field} nested ${depth} deep`, () => this.request({ body: text(`{"${field}":${deep}}`) }), [400]);
      const arrays = '['.repeat(depth) + ']'.repeat(depth);
      this.add('deep-json', `arrays nested ${depth} deep`, () => this.request({ body: text(`{"fuzz_nested":${arrays}}`) }), [400]);
    }
    this.add('bad-json', '__proto__ key', () => this.request({ body: text('{"__proto__":{"admin":true}}') }), [400]);
    this.add('bad-json', 'constructor.prototype key', () => this.request({ body: text('{"constructor":{"prototype":{"admin":true}}}') }), [400]);
    // An operation without a request body ignores what a JSON object body holds.
    const content = this.bodyRules ? [400] : this.mayPass();
    this.add('bad-json', 'unknown field', () => this.request({ body: text(JSON.stringify({ ...(this.validBody() ?? {}), fuzz_unknown: 1 })) }), content);
    this.add('bad-json', 'byte order mark', () => this.request({ body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text(valid)]) }), [400, ...this.mayPass()]);
    this.add('bad-json', 'utf-16 body', () => this.request({ body: Buffer.from(valid, 'utf16le') }), [400]);
  }

  /** An empty JSON body: a 400 from the parser, or an absent body where the operation takes none. */
  private emptyBodyOutcome(): number[] {
    return this.bodyRules && [...this.bodyRules.values()].every((r) => r.optional) ? this.mayPass() : [];
  }

  private firstField(): string | undefined {
    return this.bodyRules ? [...this.bodyRules.keys()][0] : undefined;
  }

  private bodyFieldCases(): void {
    if (!this.bodyRules) return;
    const base = () => this.validBody() ?? {};
    const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');
    for (const rule of this.bodyRules.values()) {
      for (const [label, value, verdict] of this.fieldValues(rule)) {
        const body = { ...base(), [rule.name]: value };
        this.add('body-field', `${rule.name}: ${label}`, () => this.request({ body: json(body) }), verdict === 'invalid' ? [400] : this.mayPass());
      }
      if (!rule.optional) {
        const without = base();
        delete without[rule.name];
        this.add('body-field', `${rule.name}: missing`, () => this.request({ body: json(without) }), [400]);
      }
      // Duplicate keys: the last one counts.
      // A field that takes any JSON refuses null only.
      const wrong = JSON.stringify(rule.kind === 'json' ? null : wrongTypes(rule.kind)[0].value);
      const good = JSON.stringify(base()[rule.name] ?? null);
      const rest = JSON.stringify(base()).slice(1, -1);
      const join = (...parts: string[]) => `{${parts.filter(Boolean).join(',')}}`;
      this.add('bad-json', `${rule.name}: duplicate key, last one wrong`, () => this.request({ body: Buffer.from(join(rest, `"${rule.name}":${good}`, `"${rule.name}":${wrong}`)) }), [400]);
      if (rule.name in base()) {
        this.add('bad-json', `${rule.name}: duplicate key, last one valid`, () => this.request({ body: Buffer.from(join(`"${rule.name}":${wrong}`, rest)) }), this.mayPass());
      }
      if (rule.kind === 'string') {
        // Bytes that are not UTF-8 inside a string (overlong '/', a lone continuation byte, a UTF-8-encoded surrogate).
        for (const [label, bytes] of [['overlong utf-8', [0xc0, 0xaf]], ['lone continuation byte', [0x80]], ['encoded surrogate', [0xed, 0xa0, 0x80]], ['0xff', [0xff]]] as const) {
          const prefix = Buffer.from(`{${rest ? `${rest},` : ''}"${rule.name}":"a`);
          const body = Buffer.concat([prefix, Buffer.from(bytes), Buffer.from('b"}')]);
          this.add('unicode', `${rule.name}: ${label}`, () => this.request({ body }), this.mayPass());
        }
      }
    }
  }

  /** [label, value, verdict] for one field: wrong types, hostile strings, lengths, ranges, array shapes, nested objects. */
  private fieldValues(rule: FieldRule, depth = 0): [string, unknown, 'invalid' | 'maybe'][] {
    const out: [string, unknown, 'invalid' | 'maybe'][] = [];
    for (const wrong of wrongTypes(rule.kind)) out.push([`wrong type (${wrong.label})`, wrong.value, 'invalid']);
    out.push(['null', null, rule.nullable ? 'maybe' : 'invalid']);
    switch (rule.kind) {
      case 'string':
        for (const [label, value] of this.stringValues(rule)) out.push([label, value, stringAccepted(rule, value) === false ? 'invalid' : 'maybe']);
        break;
      case 'integer':
        for (const [label, value] of [
          ['negative', -1],
          ['zero', 0],
          ['float', 0.5],
          ['int32 max', 2_147_483_647],
          ['int32 max + 1', 2_147_483_648],
          ['safe max', Number.MAX_SAFE_INTEGER],
          ['beyond int64', 1e20],
        ] as [string, number][]) {
          const ok = Number.isInteger(value) && (rule.min === undefined || value >= rule.min) && (rule.max === undefined || value <= rule.max);
          out.push([label, value, ok ? 'maybe' : 'invalid']);
        }
        break;
      case 'array': {
        const item = rule.itemKind === 'object' && rule.nested ? this.validNested(rule.nested) : (rule.oneOf?.[0] ?? 'item');
        if (rule.arrayMax !== undefined) out.push([`${rule.arrayMax + 1} items`, Array.from({ length: rule.arrayMax + 1 }, () => item), 'invalid']);
        if (rule.arrayMin !== undefined && rule.arrayMin > 0) out.push(['no items', [], 'invalid']);
        if (rule.unique) out.push(['repeated item', [item, item], 'invalid']);
        out.push(['10 000 items', Array.from({ length: 10_000 }, () => item), rule.arrayMax !== undefined && rule.arrayMax < 10_000 ? 'invalid' : 'maybe']);
        for (const wrong of rule.itemKind === 'object' ? wrongTypes('object') : wrongTypes('string')) out.push([`an item of the wrong type (${wrong.label})`, [wrong.value], 'invalid']);
        out.push(['a null item', [null], 'invalid']);
        if (rule.itemKind === 'string') {
          const itemRule: FieldRule = { ...rule, kind: 'string' };
          for (const [label, value] of this.stringValues(itemRule)) out.push([`an item: ${label}`, [value], stringAccepted(itemRule, value) === false ? 'invalid' : 'maybe']);
        }
        if (rule.itemKind === 'object' && rule.nested && depth === 0) {
          const nestedRules = rulesOf(rule.nested);
          const valid = this.validNested(rule.nested);
          for (const nestedRule of nestedRules.values()) {
            for (const [label, value, verdict] of this.fieldValues(nestedRule, depth + 1)) {
              out.push([`an item's ${nestedRule.name}: ${label}`, [{ ...valid, [nestedRule.name]: value }], verdict]);
            }
            if (!nestedRule.optional) {
              const without: Record<string, unknown> = { ...valid };
              delete without[nestedRule.name];
              out.push([`an item without ${nestedRule.name}`, [without], 'invalid']);
            }
          }
          out.push(['an item with an unknown field', [{ ...valid, fuzz_unknown: 1 }], 'invalid']);
        }
        break;
      }
      case 'boolean':
        out.push(['true', true, 'maybe'], ['false', false, 'maybe']);
        break;
      case 'object':
        break;
      case 'json':
        for (const [label, value] of JSON_VALUES) out.push([label, value, 'maybe']);
        break;
    }
    return out;
  }

  private stringValues(rule: FieldRule): [string, string][] {
    const values: [string, string][] = HOSTILE_STRINGS.map((s) => [s.label, s.value]);
    if (rule.maxLength !== undefined) {
      values.push(['hostile text of maximum length', hostileTextOfLength(this.rng, rule.maxLength)]);
      values.push(['well-formed hostile text of maximum length', hostileTextOfLength(this.rng, rule.maxLength, true)]);
      values.push(['maximum length + 1', 'x'.repeat(rule.maxLength + 1)]);
      values.push(['maximum length + 1 in astral characters', '🤖'.repeat(rule.maxLength + 1)]);
    } else {
      values.push(['huge (300 000)', hostileTextOfLength(this.rng, 300_000)]);
    }
    if (rule.oneOf) for (const v of rule.oneOf) values.push([`allowed ${String(v)}`, String(v)], [`${String(v)} upper-cased`, String(v).toUpperCase()], [`${String(v)} with nul`, `${String(v)}\u0000`]);
    // Only random ones: an agent created with the nil UUID would exist when the path-id cases expect it not to.
    if (rule.uuid) values.push(['random uuid', this.rng.uuid()], ['upper-case random uuid', this.rng.uuid().toUpperCase()]);
    return values.filter(([, v]) => validatorLength(v) <= 400_000);
  }

  /** A valid nested object, from the valid example of the body. */
  private validNested(nested: Function): Record<string, unknown> {
    const body = this.validBody() ?? {};
    for (const value of Object.values(body)) {
      if (Array.isArray(value) && value.length > 0 && typeof value[0] === 'object') return { ...(value[0] as object) };
    }
    throw new Error(`${this.label}: the valid example of ${this.op.bodySchema} has no ${nested.name} item to mutate`);
  }

  private headerCases(): void {
    if (this.op.headerParams.includes('idempotency-key')) {
      const pattern = /^[\x21-\x7e]{1,255}$/;
      for (const key of idempotencyKeys(this.rng)) {
        this.add('header', `Idempotency-Key: ${key.label}`, () => this.request({ headers: { 'idempotency-key': key.value } }), pattern.test(key.value) ? this.mayPass() : [400]);
      }
    }
    if (this.op.headerParams.includes('last-event-id')) {
      for (const id of LAST_EVENT_IDS) this.add('header', `Last-Event-ID: ${id.label}`, () => this.request({ headers: { 'last-event-id': id.value } }), [400]);
      this.add('header', 'Last-Event-ID: 0', () => this.request({ headers: { 'last-event-id': '0' } }), this.baseOutcome());
    }
    this.add('header', 'x-request-id: garbage', () => this.request({ headers: { 'x-request-id': `\u00ff${'r'.repeat(300)}` } }), this.baseOutcome());
    this.add('header', 'accept: text/html', () => this.request({ headers: { accept: 'text/html' } }), this.baseOutcome());
    this.add('header', 'x-api-key of 20 KiB', () => this.request({ key: 'k'.repeat(20 * 1024) }), [...this.badKeyOutcome(), 431]);
  }

  /** Random values for every field, judged by the same oracle: the property-based part. */
  private randomCases(): void {
    const rounds = this.options.randomCasesPerOperation;
    const rules = [...(this.bodyRules?.values() ?? [])];
    const queryRules = this.op.queryParams.map((p) => this.queryRules.get(p.name)!);
    for (let i = 0; i < rounds; i++) {
      if (rules.length > 0 && (queryRules.length === 0 || this.rng.chance(0.6))) {
        const rule = this.rng.pick(rules);
        const [label, value, verdict] = this.randomFieldValue(rule);
        const body = { ...(this.validBody() ?? {}), [rule.name]: value };
        this.add('random', `${rule.name}: ${label}`, () => this.request({ body: Buffer.from(JSON.stringify(body)) }), verdict === 'invalid' ? [400] : this.mayPass());
      } else if (queryRules.length > 0) {
        const rule = this.rng.pick(queryRules);
        const [label, raw, verdict] = this.randomQueryValue(rule);
        this.add('random', `${rule.name}: ${label}`, () => this.request({ query: `${rule.name}=${raw}` }), verdict === 'invalid' ? [400] : this.mayPass());
      } else if (this.op.pathParams.length > 0 && this.rng.chance(0.7)) {
        const param = this.rng.pick(this.op.pathParams);
        const id = this.randomText(this.rng.int(1, 90));
        this.add('random', `${param}: random text`, () => this.request({ path: this.pathWith({ [param]: encodeURIComponent(id) }) }), [404]);
      } else if (this.rng.chance(0.5)) {
        const key = this.randomHeaderValue(this.rng.int(1, 80));
        this.add('random', 'x-api-key: random', () => this.request({ key }), this.badKeyOutcome());
      } else {
        const query = `${encodeQuery(this.randomText(this.rng.int(1, 12)))}=${encodeQuery(this.randomText(this.rng.int(0, 40)))}`;
        this.add('random', 'random query parameter', () => this.request({ query }), this.op.queryParams.length > 0 ? [400] : this.mayPass());
      }
    }
  }

  /** What can travel in a header: printable ASCII and latin-1, not starting or ending with a space. */
  private randomHeaderValue(length: number): string {
    const chars = Array.from({ length: 0x5f }, (_, i) => String.fromCharCode(0x20 + i)).concat(Array.from({ length: 0x60 }, (_, i) => String.fromCharCode(0xa0 + i)));
    return `k${this.rng.string(length, chars.join(''))}k`;
  }

  private randomText(length: number): string {
    return hostileTextOfLength(this.rng, length, this.rng.chance(0.5));
  }

  private randomFieldValue(rule: FieldRule): [string, unknown, 'invalid' | 'maybe'] {
    const roll = this.rng.next();
    if (rule.kind === 'json') {
      const [label, value] = this.rng.pick(JSON_VALUES);
      return [label, value, 'maybe'];
    }
    if (roll < 0.2) {
      const wrong = this.rng.pick(wrongTypes(rule.kind));
      return [`wrong type (${wrong.label})`, wrong.value, 'invalid'];
    }
    if (rule.kind === 'string') {
      const max = rule.maxLength ?? 2000;
      const length = this.rng.chance(0.8) ? this.rng.int(0, Math.min(max, 64)) : this.rng.int(Math.max(0, max - 2), max + 2);
      const value = rule.oneOf && this.rng.chance(0.3) ? String(this.rng.pick(rule.oneOf)) : this.randomText(length);
      return [`random text of ${length}`, value, stringAccepted(rule, value) === false ? 'invalid' : 'maybe'];
    }
    if (rule.kind === 'integer') {
      const value = this.randomNumber(rule);
      const ok = Number.isInteger(value) && (rule.min === undefined || value >= rule.min) && (rule.max === undefined || value <= rule.max);
      return [`random number ${value}`, value, ok ? 'maybe' : 'invalid'];
    }
    if (rule.kind === 'boolean') return ['random boolean', this.rng.chance(0.5), 'maybe'];
    if (rule.kind === 'array') {
      const count = this.rng.int(0, (rule.arrayMax ?? 10) + 2);
      if (rule.itemKind === 'object' && rule.nested) {
        const valid = this.validNested(rule.nested);
        const items = Array.from({ length: count }, () => ({ ...valid }));
        const ok = (rule.arrayMin === undefined || count >= rule.arrayMin) && (rule.arrayMax === undefined || count <= rule.arrayMax);
        return [`${count} valid items`, items, ok ? 'maybe' : 'invalid'];
      }
      const itemRule: FieldRule = { ...rule, kind: 'string' };
      const items = Array.from({ length: count }, () => (rule.oneOf && this.rng.chance(0.7) ? String(this.rng.pick(rule.oneOf)) : this.randomText(this.rng.int(0, 20))));
      const sizeOk = (rule.arrayMin === undefined || count >= rule.arrayMin) && (rule.arrayMax === undefined || count <= rule.arrayMax);
      const uniqueOk = !rule.unique || new Set(items).size === items.length;
      const itemsOk = items.every((v) => stringAccepted(itemRule, v) !== false);
      return [`${count} random items`, items, sizeOk && uniqueOk && itemsOk ? 'maybe' : 'invalid'];
    }
    return ['random object', { fuzz: this.randomText(5) }, 'invalid'];
  }

  private randomNumber(rule: FieldRule): number {
    const candidates = [
      () => this.rng.int(-10, 10),
      () => this.rng.int(0, 2_000_000),
      () => (rule.max ?? 1000) + this.rng.int(-2, 2),
      () => (rule.min ?? 0) + this.rng.int(-2, 2),
      () => this.rng.int(-1e6, 1e6) + 0.5,
      () => 2 ** this.rng.int(31, 70),
      () => -(2 ** this.rng.int(31, 70)),
    ];
    return this.rng.pick(candidates)();
  }

  private randomQueryValue(rule: FieldRule): [string, string, 'invalid' | 'maybe'] {
    if (rule.kind === 'integer') {
      const value = this.randomNumber(rule);
      const text = this.rng.chance(0.1) ? value.toExponential() : String(value);
      const parsed = Number(text);
      const ok = Number.isSafeInteger(parsed) && (rule.min === undefined || parsed >= rule.min) && (rule.max === undefined || parsed <= rule.max);
      // A value beyond the safe integers is refused even when its rounding lands in range.
      return [`random number ${text}`, encodeQuery(text), ok ? 'maybe' : 'invalid'];
    }
    const value = rule.oneOf && this.rng.chance(0.4) ? String(this.rng.pick(rule.oneOf)) : this.randomText(this.rng.int(0, (rule.maxLength ?? 300) + 2));
    return [`random text of ${validatorLength(value)}`, encodeQuery(value), stringAccepted(rule, value) === false ? 'invalid' : 'maybe'];
  }

  /** The per-category sample: every category keeps its share, so a small budget still covers each. */
  private sampled(): FuzzCase[] {
    const max = this.options.maxCasesPerOperation;
    if (this.cases.length <= max) return this.cases;
    const byCategory = new Map<string, FuzzCase[]>();
    for (const c of this.cases) byCategory.set(c.category, [...(byCategory.get(c.category) ?? []), c]);
    const share = Math.max(1, Math.floor(max / byCategory.size));
    const picked: FuzzCase[] = [];
    for (const list of byCategory.values()) picked.push(...this.rng.sample(list, share));
    const rest = this.rng.sample(
      this.cases.filter((c) => !picked.includes(c)),
      max - picked.length,
    );
    return [...picked, ...rest];
  }

  // ---- DTO lookup ---------------------------------------------------------

  private dtoClass(schema: string): Function {
    const dto = this.options.dtoClasses[schema];
    if (!dto) throw new Error(`${this.label}: request body ${schema} is not a class of @aas/contracts`);
    return dto;
  }

  private queryRulesOf(op: ApiOperation): Map<string, FieldRule> {
    if (op.queryParams.length === 0) return new Map();
    const names = op.queryParams.map((p) => p.name).sort().join(',');
    for (const dto of this.options.queryClasses) {
      const rules = rulesOf(dto);
      if ([...rules.keys()].sort().join(',') === names) return rules;
    }
    throw new Error(`${this.label}: no query DTO in @aas/contracts has exactly the parameters ${names}`);
  }
}

export function encodeQuery(value: string): string {
  // encodeURIComponent throws on a lone surrogate: it is sent as the (invalid) UTF-8 bytes of a surrogate instead.
  return [...value]
    .map((ch) => {
      try {
        return encodeURIComponent(ch);
      } catch {
        return '%ED%A0%80';
      }
    })
    .join('');
}

function unique(values: number[]): number[] {
  return [...new Set(values)];
}

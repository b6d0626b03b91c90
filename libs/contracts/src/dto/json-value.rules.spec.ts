import { JSON_VALUE_MAX_DEPTH, jsonValueFault } from './json-value.rules';

describe(jsonValueFault.name, () => {
  it('takes any JSON value that keeps the rules: objects, arrays, bare values, odd but well-formed text', () => {
    for (const value of [{}, [], null, true, 0, -1.5e300, 'text', { a: [1, { b: '😀 \u202e\ufffe' }], 'x y': null }, JSON.parse('{"__proto__": {"a": 1}}')]) {
      expect(jsonValueFault(value)).toBeUndefined();
    }
  });

  it('names where NUL or an unpaired surrogate sits, in a value or a key, however it was written', () => {
    expect(jsonValueFault(JSON.parse('{"a": [1, "x\\u0000"]}'))).toEqual({ path: '$.a[1]', rule: expect.stringMatching(/^a string must be well-formed .*NUL/) });
    expect(jsonValueFault(JSON.parse('{"a": {"b": "\\ud800"}}'))).toMatchObject({ path: '$.a.b' });
    expect(jsonValueFault(JSON.parse('{"a": {"\\udc00x": 1}}'))).toEqual({ path: '$.a', rule: expect.stringMatching(/^a key must be/) });
    expect(jsonValueFault('\u0000')).toMatchObject({ path: '$' });
    expect(jsonValueFault({ 'odd key!': ['\udbff'] })).toMatchObject({ path: '$["odd key!"][0]' });
  });

  it('refuses numbers JSON.parse made infinite', () => {
    expect(jsonValueFault(JSON.parse(`{"n": [1${'0'.repeat(400)}]}`))).toEqual({ path: '$.n[0]', rule: expect.stringMatching(/finite/) });
    expect(jsonValueFault(JSON.parse('-1e999'))).toMatchObject({ path: '$' });
  });

  it(`refuses more than ${JSON_VALUE_MAX_DEPTH} levels of objects and arrays, measured without recursion`, () => {
    const nested = (levels: number) => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
    expect(jsonValueFault(nested(JSON_VALUE_MAX_DEPTH))).toBeUndefined();
    expect(jsonValueFault(nested(JSON_VALUE_MAX_DEPTH + 1))).toMatchObject({ rule: 'nested deeper than 32 levels of objects and arrays' });
    expect(jsonValueFault(nested(100_000))).toMatchObject({ rule: expect.stringMatching(/nested deeper/) });
  });

  it('walks a 1 MiB payload in milliseconds', () => {
    const big = { a: Array.from({ length: 50_000 }, (_, i) => ({ i, s: 'abc' })) };
    expect(JSON.stringify(big).length).toBeGreaterThan(1_000_000);
    const started = performance.now();
    expect(jsonValueFault(big)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(500);
  });
});

import { ServiceUnavailableError } from '@aas/problem-details';
import { catalogueOf, catalogueUrl } from './runtime-catalogue';

describe(catalogueUrl.name, () => {
  it.each([
    ['http://runtime:8080', 'http://runtime:8080/tools'],
    ['http://runtime:8080/', 'http://runtime:8080/tools'],
    ['https://runtime.example/agent/run/', 'https://runtime.example/agent/run/tools'],
    ['https://runtime.example/run?x=1', 'https://runtime.example/run/tools'],
  ])('%s → %s', (url, expected) => {
    expect(catalogueUrl(url)).toBe(expected);
  });
});

describe(catalogueOf.name, () => {
  const tool = { name: 'http_request', description: 'GET or POST', input_schema: { type: 'object' }, icon: 'globe', server: null };

  it('keeps the entries of the form of a tool, with only their five fields; absent icon and server are null', () => {
    const { icon: _icon, server: _server, ...bare } = tool;
    expect(catalogueOf({ tools: [{ ...tool, extra: 'x' }, { ...bare, name: 'b' }] })).toEqual({
      tools: [tool, { ...bare, name: 'b', icon: null, server: null }],
    });
  });

  it.each([
    ['a name that is not a string', { ...tool, name: 1 }],
    ['an empty name', { ...tool, name: '' }],
    ['a name past 200 characters', { ...tool, name: 'x'.repeat(201) }],
    ['no description', { ...tool, description: undefined }],
    ['an input_schema that is an array', { ...tool, input_schema: [] }],
    ['an icon that is a number', { ...tool, icon: 3 }],
    ['null', null],
  ])('leaves out an entry with %s', (_, entry) => {
    expect(catalogueOf({ tools: [entry, tool] })).toEqual({ tools: [tool] });
  });

  it('keeps at most 500 tools', () => {
    expect(catalogueOf({ tools: Array.from({ length: 600 }, (_, i) => ({ ...tool, name: `t${i}` })) }).tools).toHaveLength(500);
  });

  it.each([[null], [[]], [{}], [{ tools: {} }]])('refuses %j, which is not a catalogue, with a 503', (body) => {
    expect(() => catalogueOf(body)).toThrow(ServiceUnavailableError);
  });
});

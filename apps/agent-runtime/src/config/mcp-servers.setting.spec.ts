import { modelToolName, parseMcpServers } from './mcp-servers.setting';

describe(parseMcpServers.name, () => {
  it('takes nothing as no servers, and servers by name with a URL and headers', () => {
    expect(parseMcpServers(undefined)).toEqual({});
    expect(parseMcpServers('{"files":{"url":"http://files:8080/mcp","headers":{"authorization":"Bearer x"}}}')).toEqual({
      files: { url: 'http://files:8080/mcp', headers: { authorization: 'Bearer x' } },
    });
  });

  it.each([
    ['nope', /JSON object/],
    ['[]', /JSON object/],
    ['{"a.b":{"url":"http://x/"}}', /server name "a.b"/],
    ['{"files":{}}', /files needs a "url"/],
    ['{"files":{"url":"ftp://x"}}', /files needs a "url"/],
    ['{"files":{"url":"http://x/","headers":{"a":1}}}', /headers" of files/],
  ])('refuses %s', (text, message) => {
    expect(parseMcpServers(text)).toMatch(message);
  });
});

describe(modelToolName.name, () => {
  it('joins server and tool with __, in the characters function names allow', () => {
    expect(modelToolName('files', 'read')).toBe('files__read');
    expect(modelToolName('files', 'read.v2 x')).toBe('files__read_v2_x');
  });
});

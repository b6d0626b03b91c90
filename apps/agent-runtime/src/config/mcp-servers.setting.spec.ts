import { modelToolName, parseMcpServers } from './mcp-servers.setting';

describe(parseMcpServers.name, () => {
  it('takes nothing as no servers, and servers by name with a URL and headers', () => {
    expect(parseMcpServers(undefined)).toEqual({});
    expect(parseMcpServers('{"files":{"url":"http://files:8080/mcp","headers":{"authorization":"Bearer x"}}}')).toEqual({
      files: { url: 'http://files:8080/mcp', headers: { authorization: 'Bearer x' } },
    });
  });

  it('takes stdio servers: a command, with optional args, env and cwd', () => {
    expect(parseMcpServers('{"local":{"command":"node","args":["server.js","--ro"],"env":{"TOKEN":"t"},"cwd":"/srv"},"bare":{"command":"mcp-time"}}')).toEqual({
      local: { command: 'node', args: ['server.js', '--ro'], env: { TOKEN: 't' }, cwd: '/srv' },
      bare: { command: 'mcp-time' },
    });
  });

  it.each([
    ['nope', /JSON object/],
    ['[]', /JSON object/],
    ['{"a.b":{"url":"http://x/"}}', /server name "a.b"/],
    ['{"files":{}}', /files needs a "url" \(http or https\) or a "command"/],
    ['{"files":"http://x/"}', /files must be an object/],
    ['{"files":{"url":"ftp://x"}}', /files needs a "url"/],
    ['{"files":{"url":"http://x/","headers":{"a":1}}}', /headers" of files/],
    ['{"files":{"url":"http://x/","header":{"a":"b"}}}', /files has an unknown field "header"/],
    ['{"both":{"url":"http://x/","command":"node"}}', /both has both a "url" and a "command"/],
    ['{"local":{"command":""}}', /"command" of local must be a non-empty string/],
    ['{"local":{"command":["node","x.js"]}}', /"command" of local must be a non-empty string/],
    ['{"local":{"command":"node","args":"x.js"}}', /"args" of local must be an array of strings/],
    ['{"local":{"command":"node","args":[1]}}', /"args" of local must be an array of strings/],
    ['{"local":{"command":"node","env":{"A":1}}}', /"env" of local must be an object of strings/],
    ['{"local":{"command":"node","cwd":7}}', /"cwd" of local must be a non-empty string/],
    ['{"local":{"command":"node","argv":["x"]}}', /local has an unknown field "argv"/],
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

// An MCP server over stdio, with the official SDK, for tests: the runtime runs it as a local command
// (MCP_SERVERS {"local":{"command":node,"args":[this file],"env":{…}}}).
// Tools: `whoami` answers `pid <its process id> <FIXTURE_GREETING>`, so a test sees which process
// answered and that the configured env reached it; `wait` ({ms, started_file}) writes started_file,
// then answers after ms, so a test can kill the process while a call is in flight.
import { writeFileSync } from 'node:fs';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'fixture-stdio', version: '1.0.0' });
server.registerTool('whoami', { description: 'Says which process answers', inputSchema: {} }, async () => ({
  content: [{ type: 'text', text: `pid ${process.pid} ${process.env.FIXTURE_GREETING ?? ''}`.trim() }],
}));
server.registerTool('wait', { description: 'Answers after a while', inputSchema: { ms: z.number(), started_file: z.string() } }, async ({ ms, started_file }) => {
  writeFileSync(started_file, String(process.pid));
  await sleep(ms);
  return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
});
await server.connect(new StdioServerTransport());

import { IncomingMessage, Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/**
 * An MCP server over streamable HTTP (stateless: a server per request), with the official SDK, for tests.
 * Tools: `lookup` ({key}) answers `value of <key>`; `broken` always answers an error result.
 * It records the headers of each request and answers 401 when `requiredAuthorization` is set and not sent.
 */
export class FixtureMcpServer {
  readonly headers: IncomingMessage['headers'][] = [];
  private url_ = '';

  private constructor(
    private readonly server: Server,
    private readonly requiredAuthorization: string | undefined,
  ) {}

  static async start(requiredAuthorization?: string): Promise<FixtureMcpServer> {
    const fixture: FixtureMcpServer = new FixtureMcpServer(
      createServer((req, res) => void fixture.serve(req, res)),
      requiredAuthorization,
    );
    await new Promise<void>((resolve) => fixture.server.listen(0, '127.0.0.1', resolve));
    fixture.url_ = `http://127.0.0.1:${(fixture.server.address() as AddressInfo).port}/mcp`;
    return fixture;
  }

  get url(): string {
    return this.url_;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async serve(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    this.headers.push(req.headers);
    if (this.requiredAuthorization && req.headers.authorization !== this.requiredAuthorization) return void res.writeHead(401).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const mcp = new McpServer({ name: 'fixture', version: '1.0.0' });
    mcp.registerTool('lookup', { description: 'Looks a key up', inputSchema: { key: z.string() } }, async ({ key }) => ({
      content: [{ type: 'text', text: `value of ${key}` }],
    }));
    mcp.registerTool('broken', { description: 'Always fails', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}

import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { MCPClient, createMCPClient } from '@ai-sdk/mcp';
import { RuntimeEnv } from '../config/runtime.env';
import { McpHttpServerConfig, McpServerConfig, isStdioServer, parseMcpServers } from '../config/mcp-servers.setting';
import { MCP_CONNECT_TIMEOUT_MS, McpTool, listMcpTools } from './mcp-tool';
import { StdioMcpServer } from './stdio-mcp-server';

export type { McpTool } from './mcp-tool';

/**
 * The MCP servers of MCP_SERVERS, each connected once per process at start (their tools listed then).
 * An HTTP server that cannot be reached is left out, with a warning, so the runtime still starts; a
 * stdio server's process is ours, so it is started again with backoff until it runs (StdioMcpServer).
 */
@Injectable()
export class McpServers implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(McpServers.name);
  private readonly clients: MCPClient[] = [];
  private httpTools: McpTool[] = [];
  private readonly stdio: StdioMcpServer[];
  private readonly servers: Record<string, McpServerConfig>;

  constructor(env: RuntimeEnv) {
    const parsed = parseMcpServers(env.MCP_SERVERS);
    this.servers = typeof parsed === 'string' ? {} : parsed;
    this.stdio = Object.entries(this.servers).flatMap(([name, server]) => (isStdioServer(server) ? [new StdioMcpServer(name, server, this.logger)] : []));
  }

  /** Every server's tools, in MCP_SERVERS' order of servers. */
  get tools(): McpTool[] {
    const stdio = new Map(this.stdio.map((server) => [server.name, server.tools]));
    return Object.keys(this.servers).flatMap((name) => stdio.get(name) ?? this.httpTools.filter((tool) => tool.server === name));
  }

  /** Header values and stdio environment values of the servers (credentials): never written to a line. */
  get secrets(): string[] {
    return Object.values(this.servers).flatMap((server) => Object.values((isStdioServer(server) ? server.env : server.headers) ?? {}));
  }

  async onApplicationBootstrap(): Promise<void> {
    const http = Object.entries(this.servers).flatMap(([name, server]) => (isStdioServer(server) ? [] : [this.connect(name, server)]));
    const [lists] = await Promise.all([Promise.all(http), ...this.stdio.map((server) => server.start())]);
    this.httpTools = lists.flat();
  }

  beforeApplicationShutdown(): void {
    for (const server of this.stdio) server.drain();
  }

  async onApplicationShutdown(): Promise<void> {
    const closeHttp = (client: MCPClient) => client.close().catch((error: Error) => this.logger.warn(`an MCP client did not close cleanly: ${error.message}`));
    await Promise.all([...this.clients.map(closeHttp), ...this.stdio.map((server) => server.close())]);
  }

  private async connect(name: string, server: McpHttpServerConfig): Promise<McpTool[]> {
    try {
      const client = await createMCPClient({
        transport: { type: 'http', url: server.url, headers: server.headers },
        initializationOptions: { timeout: MCP_CONNECT_TIMEOUT_MS },
      });
      this.clients.push(client);
      return await listMcpTools(name, client);
    } catch (error) {
      // The URL is left out: it may carry a credential in its query.
      this.logger.warn(`MCP server ${name} left out: ${(error as Error).message}`);
      return [];
    }
  }
}

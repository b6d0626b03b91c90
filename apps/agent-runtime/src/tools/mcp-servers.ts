import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ToolCatalogueEntry } from '@aas/contracts';
import { MCPClient, createMCPClient } from '@ai-sdk/mcp';
import type { Tool } from 'ai';
import { RuntimeEnv } from '../config/runtime.env';
import { McpServerConfig, modelToolName, parseMcpServers } from '../config/mcp-servers.setting';

/** How long connecting to an MCP server and listing its tools may take at start. */
const CONNECT_TIMEOUT_MS = 10_000;

/** One tool of an MCP server: its catalogue name (`server.tool`), the name the model calls, the AI SDK tool. */
export interface McpTool {
  name: string;
  modelName: string;
  server: string;
  tool: Tool;
  entry: ToolCatalogueEntry;
}

/**
 * The MCP servers of MCP_SERVERS, connected once per process at start (their tools listed then).
 * A server that cannot be reached is left out, with a warning, so the runtime still starts.
 */
@Injectable()
export class McpServers implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(McpServers.name);
  private readonly clients: MCPClient[] = [];
  private tools_: McpTool[] = [];
  private readonly servers: Record<string, McpServerConfig>;

  constructor(env: RuntimeEnv) {
    const parsed = parseMcpServers(env.MCP_SERVERS);
    this.servers = typeof parsed === 'string' ? {} : parsed;
  }

  get tools(): McpTool[] {
    return this.tools_;
  }

  /** Header values of the servers (credentials): never written to a line. */
  get secrets(): string[] {
    return Object.values(this.servers).flatMap((server) => Object.values(server.headers ?? {}));
  }

  async onApplicationBootstrap(): Promise<void> {
    const lists = await Promise.all(Object.entries(this.servers).map(([name, server]) => this.connect(name, server)));
    this.tools_ = lists.flat();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.close().catch(() => undefined)));
  }

  private async connect(name: string, server: McpServerConfig): Promise<McpTool[]> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const work = (async () => {
        const client = await createMCPClient({ transport: { type: 'http', url: server.url, headers: server.headers } });
        this.clients.push(client);
        const definitions = await client.listTools();
        const tools = client.toolsFromDefinitions(definitions);
        return definitions.tools.map((definition): McpTool => ({
          name: `${name}.${definition.name}`,
          modelName: modelToolName(name, definition.name),
          server: name,
          tool: tools[definition.name],
          entry: {
            name: `${name}.${definition.name}`,
            description: definition.description ?? definition.title ?? definition.name,
            input_schema: definition.inputSchema as Record<string, unknown>,
            icon: 'plug',
            server: name,
          },
        }));
      })();
      const timeout = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS)));
      return await Promise.race([work, timeout]);
    } catch (error) {
      // The URL is left out: it may carry a credential in its query.
      this.logger.warn(`MCP server ${name} left out: ${(error as Error).message}`);
      return [];
    } finally {
      clearTimeout(timer);
    }
  }
}

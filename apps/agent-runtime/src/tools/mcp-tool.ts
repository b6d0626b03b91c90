import { ToolCatalogueEntry } from '@aas/contracts';
import type { ListToolsResult, MCPClient } from '@ai-sdk/mcp';
import type { Tool, ToolCallOptions } from 'ai';
import { modelToolName } from '../config/mcp-servers.setting';

/** How long connecting to an MCP server (or starting its process) and listing its tools may take. */
export const MCP_CONNECT_TIMEOUT_MS = 10_000;

/** Calls one tool of an MCP server with the model's input; resolves to the MCP result. */
export type McpCall = (input: unknown, options: ToolCallOptions) => Promise<unknown>;

/** One tool of an MCP server: its catalogue name (`server.tool`), the name the model calls, the AI SDK tool. */
export interface McpTool {
  name: string;
  modelName: string;
  server: string;
  /** The description and input schema the model is given. */
  tool: Tool;
  /** Calls the tool on the server (for a stdio server, on its process of the moment). */
  call: McpCall;
  entry: ToolCatalogueEntry;
}

/** Calls `tool` on the client that listed it (an MCP client's tools always have an execute). */
export function callOn(tool: Tool): McpCall {
  return async (input, options) => await tool.execute!(input, options);
}

/** Lists the tools of a connected server; `callOf` says how each is called (by default, on this client). */
export async function listMcpTools(server: string, client: MCPClient, callOf?: (tool: string) => McpCall): Promise<McpTool[]> {
  const definitions: ListToolsResult = await client.listTools({ options: { timeout: MCP_CONNECT_TIMEOUT_MS } });
  const tools = client.toolsFromDefinitions(definitions);
  return definitions.tools.map((definition): McpTool => {
    const tool = tools[definition.name];
    return {
      name: `${server}.${definition.name}`,
      modelName: modelToolName(server, definition.name),
      server,
      tool,
      call: callOf?.(definition.name) ?? callOn(tool),
      entry: {
        name: `${server}.${definition.name}`,
        description: definition.description ?? definition.title ?? definition.name,
        input_schema: definition.inputSchema as Record<string, unknown>,
        icon: 'plug',
        server,
      },
    };
  });
}

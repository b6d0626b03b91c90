import { Injectable } from '@nestjs/common';
import { ToolCatalogueEntry } from '@aas/contracts';
import { McpServers } from './mcp-servers';
import { TOOL_CATALOGUE } from './tool-catalogue';

/** The catalogue GET /tools serves and build runs offer: the built-in tools, then each MCP server's. */
@Injectable()
export class ToolCatalogueService {
  constructor(private readonly mcp: McpServers) {}

  entries(): ToolCatalogueEntry[] {
    return [...TOOL_CATALOGUE, ...this.mcp.tools.map((tool) => tool.entry)];
  }
}

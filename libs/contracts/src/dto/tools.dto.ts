import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ToolCatalogue, ToolCatalogueEntry } from '../runtime/runtime-protocol';

/** One tool of the runtime's catalogue (GET /v1/tools, an addition to the contract). */
export class ToolDto implements ToolCatalogueEntry {
  @ApiProperty({ description: 'What plan steps list in `tools`: `http_request`, or `<server>.<tool>` for an MCP tool' })
  name!: string;

  @ApiProperty()
  description!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: "JSON Schema of the tool's input" })
  input_schema!: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'The icon a run\'s tool_icons show for it' })
  icon!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'The MCP server that serves it; null for a built-in tool' })
  server!: string | null;
}

export class ToolListResponse implements ToolCatalogue {
  @ApiProperty({ type: [ToolDto] })
  tools!: ToolDto[];
}

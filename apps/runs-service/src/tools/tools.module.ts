import { Module } from '@nestjs/common';
import { ToolCatalogueSource } from './tool-catalogue';
import { ToolsHandlers } from './tools.handlers';

/** The agent runtime's tool catalogue: GET /v1/tools, and the icons of a run's tool_icons. */
@Module({
  controllers: [ToolsHandlers],
  providers: [ToolCatalogueSource],
  exports: [ToolCatalogueSource],
})
export class ToolsModule {}

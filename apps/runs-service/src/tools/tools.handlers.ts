import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ListToolsMessage, RunsPatterns, ToolListResponse } from '@aas/contracts';
import { ToolCatalogueSource } from './tool-catalogue';

@Controller()
export class ToolsHandlers {
  constructor(private readonly catalogue: ToolCatalogueSource) {}

  /** The same catalogue for every user: the runtime is the installation's. */
  @MessagePattern(RunsPatterns.ListTools)
  list(@Payload() _message: ListToolsMessage): Promise<ToolListResponse> {
    return this.catalogue.list() as Promise<ToolListResponse>;
  }
}

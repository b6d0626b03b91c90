import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { HandlesRequest, ListToolsMessage, RunsPatterns, ToolListResponse } from '@aas/contracts';
import { ToolCatalogueSource } from './tool-catalogue';

@Controller()
export class ToolsHandlers {
  constructor(private readonly catalogue: ToolCatalogueSource) {}

  /** The same catalogue for every user: the runtime is the installation's. */
  @HandlesRequest(RunsPatterns.ListTools)
  list(@Payload() _message: ListToolsMessage): Promise<ToolListResponse> {
    return this.catalogue.list() as Promise<ToolListResponse>;
  }
}

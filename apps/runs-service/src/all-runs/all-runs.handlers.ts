import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AllRunsListResponse, HandlesRequest, ListAllRunsMessage, RunsPatterns } from '@aas/contracts';
import { AllRunsService } from './all-runs.service';

@Controller()
export class AllRunsHandlers {
  constructor(private readonly allRuns: AllRunsService) {}

  @HandlesRequest(RunsPatterns.ListAllRuns)
  list(@Payload() message: ListAllRunsMessage): Promise<AllRunsListResponse> {
    return this.allRuns.list(message);
  }
}

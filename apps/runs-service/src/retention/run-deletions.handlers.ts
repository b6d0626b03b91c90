import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DeleteRunsMessage, HandlesRequest, RunDeletionResponse, RunsPatterns } from '@aas/contracts';
import { RunDeletions } from './run-deletions';

@Controller()
export class RunDeletionsHandlers {
  constructor(private readonly deletions: RunDeletions) {}

  @HandlesRequest(RunsPatterns.DeleteRuns)
  delete(@Payload() message: DeleteRunsMessage): Promise<RunDeletionResponse> {
    return this.deletions.request(message);
  }
}

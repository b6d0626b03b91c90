import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  BulkActionListResponse,
  BulkActionRefMessage,
  BulkActionResponse,
  BulkActionRunListResponse,
  CreateBulkActionMessage,
  ListBulkActionRunsMessage,
  HandlesRequest,
  ListBulkActionsMessage,
  RunsPatterns,
} from '@aas/contracts';
import { BulkActionsService } from './bulk-actions.service';

@Controller()
export class BulkActionsHandlers {
  constructor(private readonly bulkActions: BulkActionsService) {}

  @HandlesRequest(RunsPatterns.CreateBulkAction)
  create(@Payload() message: CreateBulkActionMessage): Promise<BulkActionResponse> {
    return this.bulkActions.create(message);
  }

  @HandlesRequest(RunsPatterns.GetBulkAction)
  get(@Payload() message: BulkActionRefMessage): Promise<BulkActionResponse> {
    return this.bulkActions.get(message);
  }

  @HandlesRequest(RunsPatterns.ListBulkActions)
  list(@Payload() message: ListBulkActionsMessage): Promise<BulkActionListResponse> {
    return this.bulkActions.list(message);
  }

  @HandlesRequest(RunsPatterns.ListBulkActionRuns)
  runs(@Payload() message: ListBulkActionRunsMessage): Promise<BulkActionRunListResponse> {
    return this.bulkActions.runs(message);
  }

  @HandlesRequest(RunsPatterns.AbortBulkAction)
  abort(@Payload() message: BulkActionRefMessage): Promise<BulkActionResponse> {
    return this.bulkActions.abort(message);
  }
}

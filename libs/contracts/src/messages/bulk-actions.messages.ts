import { IntersectionType } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { CreateBulkActionRequest, ListBulkActionsQuery } from '../dto/bulk-actions.dto';
import { IDEMPOTENCY_KEY } from './runs.messages';
import { UserScopedMessage } from './user-scoped.message';

export class CreateBulkActionMessage extends IntersectionType(CreateBulkActionRequest, UserScopedMessage) {
  /** The Idempotency-Key header, as on a run start: a repeat answers the first request's action. */
  @IsOptional()
  @Matches(IDEMPOTENCY_KEY, { message: 'Idempotency-Key must be 1-255 visible ASCII characters' })
  idempotency_key?: string;
}

export class BulkActionRefMessage extends UserScopedMessage {
  /** As a run id: one that is not a UUID is simply not found (404). */
  @IsString()
  @MaxLength(256)
  bulk_action_id!: string;
}

export class ListBulkActionsMessage extends IntersectionType(ListBulkActionsQuery, UserScopedMessage) {}

export class ListBulkActionRunsMessage extends IntersectionType(ListBulkActionsQuery, BulkActionRefMessage) {}

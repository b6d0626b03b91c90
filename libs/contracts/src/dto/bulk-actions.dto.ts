import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsUUID,
  Max,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ListAllRunsQuery, REPLAY_INSTRUCTIONS, ReplayInstructions } from './runs.dto';

/** The actions a bulk action applies to each of its runs; `delete` is not supported yet (docs/bulk-actions.md). */
export const BULK_ACTIONS = ['cancel', 'replay'] as const;
export type BulkActionKind = (typeof BULK_ACTIONS)[number];
export const BULK_ACTION_STATUSES = ['queued', 'running', 'completed', 'aborted', 'failed'] as const;
export type BulkActionStatus = (typeof BULK_ACTION_STATUSES)[number];
/** Most explicit run ids one request may name (a filter is capped by BULK_ACTION_MAX_RUNS instead). */
export const BULK_ACTION_RUN_IDS_MAX = 10_000;
export const BULK_ACTION_LIST_DEFAULT_PAGE_SIZE = 50;
export const BULK_ACTION_LIST_MAX_PAGE_SIZE = 200;

/** The filters of GET /v1/runs (without its paging), resolved once when the action is created. */
export class BulkActionFilter extends OmitType(ListAllRunsQuery, ['page', 'page_size'] as const) {}

/** Exactly one of `filter` and `run_ids` (checked on `action`, which every request has). */
function FilterOrRunIds(): PropertyDecorator {
  return ValidateBy({
    name: 'filterOrRunIds',
    validator: {
      validate: (_value, args) => {
        const body = args?.object as { filter?: unknown; run_ids?: unknown };
        return (body.filter === undefined) !== (body.run_ids === undefined);
      },
      defaultMessage: () => 'exactly one of filter and run_ids is required',
    },
  });
}

export class CreateBulkActionRequest {
  @ApiProperty({ enum: BULK_ACTIONS, description: 'cancel: stop each run (finished runs are skipped); replay: replay each run. delete is not supported yet' })
  @IsIn(BULK_ACTIONS, { message: 'action must be cancel or replay (delete is not supported yet)' })
  @FilterOrRunIds()
  action!: BulkActionKind;

  @ApiPropertyOptional({ type: BulkActionFilter, description: 'The runs GET /v1/runs would list with these filters, resolved once when the action is created' })
  @ValidateIf((body: CreateBulkActionRequest) => body.filter !== undefined)
  @IsObject()
  @ValidateNested()
  @Type(() => BulkActionFilter)
  filter?: BulkActionFilter;

  @ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: BULK_ACTION_RUN_IDS_MAX, description: "The caller's runs to act on; ids that are not the caller's runs are left out" })
  @ValidateIf((body: CreateBulkActionRequest) => body.run_ids !== undefined)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(BULK_ACTION_RUN_IDS_MAX)
  @IsUUID('all', { each: true })
  run_ids?: string[];

  @ApiPropertyOptional({ enum: REPLAY_INSTRUCTIONS, default: 'original', description: 'replay only: as on a single replay' })
  @ValidateIf((body: CreateBulkActionRequest) => body.instructions !== undefined)
  @IsIn(REPLAY_INSTRUCTIONS)
  instructions?: ReplayInstructions;
}

export class BulkActionDto {
  @ApiProperty({ format: 'uuid' })
  bulk_action_id!: string;

  @ApiProperty({ enum: BULK_ACTIONS })
  action!: BulkActionKind;

  @ApiProperty({ enum: BULK_ACTION_STATUSES })
  status!: BulkActionStatus;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'The filter as given; null when run_ids were given' })
  filter!: Record<string, string> | null;

  @ApiProperty({ type: 'string', enum: REPLAY_INSTRUCTIONS, nullable: true, description: 'replay: the instructions asked for; null for cancel' })
  instructions!: ReplayInstructions | null;

  @ApiProperty({ type: 'integer', description: 'Runs resolved when the action was created' })
  matched!: number;

  @ApiProperty({ type: 'integer', description: 'Runs the action was applied to (cancelled, or replayed)' })
  done!: number;

  @ApiProperty({ type: 'integer', description: 'Runs whose action was refused (a replay over a quota, a run deleted meanwhile)' })
  failed!: number;

  @ApiProperty({ type: 'integer', description: 'Runs left as they were (a cancel of a finished run)' })
  skipped!: number;

  @ApiProperty({ type: 'integer', description: 'Runs not yet reached (or never, once aborted): matched - done - failed - skipped' })
  pending!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  started_at!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  finished_at!: string | null;
}

export class BulkActionResponse {
  @ApiProperty({ type: BulkActionDto })
  bulk_action!: BulkActionDto;
}

export class ListBulkActionsQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 1, description: '1-based; 0 is treated as 1' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: BULK_ACTION_LIST_MAX_PAGE_SIZE, default: BULK_ACTION_LIST_DEFAULT_PAGE_SIZE })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(BULK_ACTION_LIST_MAX_PAGE_SIZE)
  page_size?: number;
}

export class BulkActionListResponse {
  @ApiProperty({ type: [BulkActionDto], description: 'Newest first' })
  bulk_actions!: BulkActionDto[];

  @ApiProperty({ type: 'integer' })
  total!: number;

  @ApiProperty({ type: 'integer' })
  page!: number;

  @ApiProperty({ type: 'integer' })
  page_size!: number;
}

export const BULK_ACTION_RUN_RESULTS = ['done', 'failed', 'skipped'] as const;

/** One run an action resolved, with what happened to it. */
export class BulkActionRunDto {
  @ApiProperty({ format: 'uuid' })
  run_id!: string;

  @ApiProperty({ format: 'uuid' })
  agent_id!: string;

  @ApiProperty({ type: 'string', enum: BULK_ACTION_RUN_RESULTS, nullable: true, description: 'null: not reached (yet, or ever once aborted)' })
  result!: (typeof BULK_ACTION_RUN_RESULTS)[number] | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'Why the run failed or was skipped' })
  detail!: string | null;

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'replay: the new run' })
  result_run_id!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  finished_at!: string | null;
}

export class BulkActionRunListResponse {
  @ApiProperty({ type: [BulkActionRunDto], description: 'In the order the action reaches them (oldest run first)' })
  runs!: BulkActionRunDto[];

  @ApiProperty({ type: 'integer' })
  total!: number;

  @ApiProperty({ type: 'integer' })
  page!: number;

  @ApiProperty({ type: 'integer' })
  page_size!: number;
}

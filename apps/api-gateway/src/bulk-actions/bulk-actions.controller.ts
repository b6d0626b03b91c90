import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { BulkActionListResponse, BulkActionResponse, BulkActionRunListResponse, CreateBulkActionRequest, ListBulkActionsQuery, RunsPatterns } from '@aas/contracts';
import { JsonBody } from '@aas/platform';
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { RelaysJson } from '../http/relays-json';
import { ApiProblems } from '../openapi/api-problems.decorator';

/** Bulk actions on runs (docs/bulk-actions.md); runs-service owns them. */
@ApiTags('Bulk actions')
@Controller('v1/bulk-actions')
export class BulkActionsController {
  constructor(private readonly services: CallerServices) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Cancel or replay many runs as one tracked job',
    description:
      'The runs (a GET /v1/runs filter, or explicit run_ids) are resolved once, now; the action is carried out in the background, ' +
      'a chunk at a time. 422 quota-exceeded when more than QUOTA_BULK_ACTION_RUNS runs match (bulk_action_runs) or the caller already has ' +
      'QUOTA_ACTIVE_BULK_ACTIONS_PER_USER actions queued or running (active_bulk_actions_per_user); 429 past QUOTA_BULK_ACTIONS_PER_HOUR creations in an hour. ' +
      'action delete is not supported yet (400).',
  })
  @ApiHeader({
    name: 'idempotency-key',
    required: false,
    description: 'Repeating a creation with the same key answers the first action instead of a second one',
  })
  @ApiAcceptedResponse({ type: BulkActionResponse })
  @ApiProblems(400, 401, 422, 429)
  create(
    @Caller() caller: Caller,
    @Body() body: CreateBulkActionRequest,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<BulkActionResponse> {
    return this.services.request(caller, RunsPatterns.CreateBulkAction, idempotencyKey === undefined ? body : { ...body, idempotency_key: idempotencyKey });
  }

  @Get()
  @ApiOperation({ summary: "The caller's bulk actions, newest first" })
  @ApiOkResponse({ type: BulkActionListResponse })
  @ApiProblems(400, 401)
  @RelaysJson()
  list(@Caller() caller: Caller, @Query() query: ListBulkActionsQuery): Promise<JsonBody<BulkActionListResponse>> {
    return this.services.requestJson(caller, RunsPatterns.ListBulkActions, query);
  }

  @Get(':bulk_action_id')
  @ApiOperation({ summary: 'One bulk action, with its progress (counts)' })
  @ApiParam({ name: 'bulk_action_id', format: 'uuid' })
  @ApiOkResponse({ type: BulkActionResponse })
  @ApiProblems(401, 404)
  @RelaysJson()
  get(@Caller() caller: Caller, @Param('bulk_action_id') id: string): Promise<JsonBody<BulkActionResponse>> {
    return this.services.requestJson(caller, RunsPatterns.GetBulkAction, { bulk_action_id: id });
  }

  @Get(':bulk_action_id/runs')
  @ApiOperation({ summary: "The action's runs, in the order it reaches them, with each one's result (null: not reached)" })
  @ApiParam({ name: 'bulk_action_id', format: 'uuid' })
  @ApiOkResponse({ type: BulkActionRunListResponse })
  @ApiProblems(400, 401, 404)
  @RelaysJson()
  runs(@Caller() caller: Caller, @Param('bulk_action_id') id: string, @Query() query: ListBulkActionsQuery): Promise<JsonBody<BulkActionRunListResponse>> {
    return this.services.requestJson(caller, RunsPatterns.ListBulkActionRuns, { ...query, bulk_action_id: id });
  }

  @Post(':bulk_action_id/abort')
  @HttpCode(200)
  @ApiOperation({ summary: 'Abort a bulk action between runs: the runs not yet reached are left as they are; 409 when it has already finished' })
  @ApiParam({ name: 'bulk_action_id', format: 'uuid' })
  @ApiOkResponse({ type: BulkActionResponse })
  @ApiProblems(401, 404, 409)
  abort(@Caller() caller: Caller, @Param('bulk_action_id') id: string): Promise<BulkActionResponse> {
    return this.services.request(caller, RunsPatterns.AbortBulkAction, { bulk_action_id: id });
  }
}

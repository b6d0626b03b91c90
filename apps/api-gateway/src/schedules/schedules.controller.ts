import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import {
  BackfillScheduleRequest,
  BackfillScheduleResponse,
  PreviewScheduleRequest,
  PutScheduleRequest,
  ScheduleListResponse,
  SchedulePreviewResponse,
  ScheduleResponse,
  SchedulerPatterns,
  SuccessResponse,
} from '@aas/contracts';
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { ApiProblems } from '../openapi/api-problems.decorator';

@ApiTags('Schedules')
@ApiParam({ name: 'agent_id', format: 'uuid' })
@Controller('v1/agents/:agent_id/schedule')
export class AgentScheduleController {
  constructor(private readonly services: CallerServices) {}

  @Get()
  @ApiOperation({ summary: "The agent's schedule, or null when none is set" })
  @ApiOkResponse({ type: ScheduleResponse })
  @ApiProblems(401, 404)
  get(@Caller() caller: Caller, @Param('agent_id') agentId: string): Promise<ScheduleResponse> {
    return this.services.request(caller, SchedulerPatterns.GetSchedule, { agent_id: agentId });
  }

  @Put()
  @HttpCode(200)
  @ApiOperation({ summary: 'Set or replace the schedule (7-field cron); the agent must be deployed' })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiProblems(400, 401, 404)
  put(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Body() body: PutScheduleRequest,
  ): Promise<SuccessResponse> {
    return this.services.request(caller, SchedulerPatterns.PutSchedule, { ...body, agent_id: agentId });
  }

  @Delete()
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete the schedule' })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiProblems(401, 404)
  delete(@Caller() caller: Caller, @Param('agent_id') agentId: string): Promise<SuccessResponse> {
    return this.services.request(caller, SchedulerPatterns.DeleteSchedule, { agent_id: agentId });
  }

  @Post('pause')
  @HttpCode(200)
  @ApiOperation({ summary: 'Pause the schedule; it is kept and fires no runs' })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiProblems(401, 404)
  pause(@Caller() caller: Caller, @Param('agent_id') agentId: string): Promise<SuccessResponse> {
    return this.services.request(caller, SchedulerPatterns.PauseSchedule, { agent_id: agentId });
  }

  @Post('backfill')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Start one run per fire time of the schedule in a past range',
    description:
      'from and to are inclusive and must not be in the future; at most SCHEDULE_BACKFILL_MAX_RUNS (100) fire times. ' +
      'Each run is keyed by its fire time, so a repeated backfill, or a fire the scheduler made itself, answers the existing run instead of starting another. ' +
      "Its runs count against the owner's RATE_LIMIT_TRIGGERED_RUNS (a 429 when fewer are left; nothing starts), and a 422 waiting_runs_per_user says how many started.",
  })
  @ApiAcceptedResponse({ type: BackfillScheduleResponse })
  @ApiProblems(400, 401, 404, 422, 429)
  backfill(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Body() body: BackfillScheduleRequest,
  ): Promise<BackfillScheduleResponse> {
    return this.services.request(caller, SchedulerPatterns.BackfillSchedule, { ...body, agent_id: agentId });
  }

  @Post('resume')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resume the schedule; clears auto-pause and the failure count' })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiProblems(401, 404)
  resume(@Caller() caller: Caller, @Param('agent_id') agentId: string): Promise<SuccessResponse> {
    return this.services.request(caller, SchedulerPatterns.ResumeSchedule, { agent_id: agentId });
  }
}

@ApiTags('Schedules')
@Controller('v1/schedules')
export class SchedulesController {
  constructor(private readonly services: CallerServices) {}

  @Get()
  @ApiOperation({ summary: "Every schedule of the caller's agents" })
  @ApiOkResponse({ type: ScheduleListResponse })
  @ApiProblems(401)
  list(@Caller() caller: Caller): Promise<ScheduleListResponse> {
    return this.services.request(caller, SchedulerPatterns.ListSchedules, {});
  }

  @Post('preview')
  @HttpCode(200)
  @ApiOperation({ summary: 'Check a 7-field cron expression and timezone, and list its next 5 fire times (changes nothing)' })
  @ApiOkResponse({ type: SchedulePreviewResponse })
  @ApiProblems(400, 401)
  preview(@Caller() caller: Caller, @Body() body: PreviewScheduleRequest): Promise<SchedulePreviewResponse> {
    return this.services.request(caller, SchedulerPatterns.PreviewSchedule, { ...body });
  }
}

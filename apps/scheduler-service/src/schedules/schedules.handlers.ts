import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AgentScheduleMessage,
  BackfillScheduleMessage,
  BackfillScheduleResponse,
  HandlesRequest,
  PreviewScheduleMessage,
  PutScheduleMessage,
  ScheduleListResponse,
  SchedulePreviewResponse,
  ScheduleResponse,
  SchedulerPatterns,
  SuccessResponse,
  UserScopedMessage,
} from '@aas/contracts';
import { ScheduleBackfill } from './schedule-backfill.service';
import { SchedulesService } from './schedules.service';

@Controller()
export class SchedulesHandlers {
  constructor(
    private readonly schedules: SchedulesService,
    private readonly backfills: ScheduleBackfill,
  ) {}

  @HandlesRequest(SchedulerPatterns.GetSchedule)
  async get(@Payload() message: AgentScheduleMessage): Promise<ScheduleResponse> {
    return { schedule: await this.schedules.get(message.user_id, message.agent_id) };
  }

  @HandlesRequest(SchedulerPatterns.PutSchedule)
  put(@Payload() message: PutScheduleMessage): Promise<SuccessResponse> {
    return this.schedules.put(message);
  }

  @HandlesRequest(SchedulerPatterns.DeleteSchedule)
  delete(@Payload() message: AgentScheduleMessage): Promise<SuccessResponse> {
    return this.schedules.delete(message.user_id, message.agent_id);
  }

  @HandlesRequest(SchedulerPatterns.PauseSchedule)
  pause(@Payload() message: AgentScheduleMessage): Promise<SuccessResponse> {
    return this.schedules.pause(message.user_id, message.agent_id);
  }

  @HandlesRequest(SchedulerPatterns.ResumeSchedule)
  resume(@Payload() message: AgentScheduleMessage): Promise<SuccessResponse> {
    return this.schedules.resume(message.user_id, message.agent_id);
  }

  @HandlesRequest(SchedulerPatterns.BackfillSchedule)
  backfill(@Payload() message: BackfillScheduleMessage): Promise<BackfillScheduleResponse> {
    return this.backfills.backfill(message);
  }

  @HandlesRequest(SchedulerPatterns.PreviewSchedule)
  preview(@Payload() message: PreviewScheduleMessage): SchedulePreviewResponse {
    return this.schedules.preview(message.cron, message.timezone);
  }

  @HandlesRequest(SchedulerPatterns.ListSchedules)
  async list(@Payload() message: UserScopedMessage): Promise<ScheduleListResponse> {
    return { schedules: await this.schedules.list(message.user_id) };
  }
}

import { IntersectionType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsISO8601, IsInt, IsOptional, IsUUID, Min, ValidateNested } from 'class-validator';
import { ProblemDetailDto } from '../dto/problem-detail.dto';
import { BackfillScheduleRequest, PreviewScheduleRequest, PutScheduleRequest } from '../dto/schedules.dto';
import { RUN_START_BATCH_MAX } from './runs.messages';
import { AgentScopedMessage, UserScopedMessage } from './user-scoped.message';

export class AgentScheduleMessage extends AgentScopedMessage {}
export class PutScheduleMessage extends IntersectionType(PutScheduleRequest, AgentScopedMessage) {}
export class BackfillScheduleMessage extends IntersectionType(BackfillScheduleRequest, AgentScopedMessage) {}

/** scheduler-service → runs-service: start the run of one fire; the fire time makes it idempotent. */
export class StartScheduledRunMessage {
  @IsUUID()
  user_id!: string;

  @IsUUID()
  agent_id!: string;

  @IsISO8601({ strict: true })
  fire_time!: string;

  /** The generation of the agent whose schedule fired: a fire of a deleted agent's schedule never starts a run of a new agent with its id. */
  @IsOptional()
  @IsInt()
  @Min(0)
  agent_generation?: number;
}

/** scheduler-service → runs-service: the runs of many fires; each fire is started or refused on its own. */
export class StartScheduledRunsMessage {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(RUN_START_BATCH_MAX)
  @ValidateNested({ each: true })
  @Type(() => StartScheduledRunMessage)
  fires!: StartScheduledRunMessage[];
}

/** A fire's run (made now, or earlier when the fire is retried), or why runs-service refused to start it. */
export type ScheduledRunOutcome =
  | { agent_id: string; fire_time: string; run_id: string }
  | { agent_id: string; fire_time: string; refused: ProblemDetailDto };

/** One outcome per fire of the request. */
export interface StartScheduledRunsResponse {
  outcomes: ScheduledRunOutcome[];
}

export class PreviewScheduleMessage extends IntersectionType(PreviewScheduleRequest, UserScopedMessage) {}

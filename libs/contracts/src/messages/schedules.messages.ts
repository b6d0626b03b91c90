import { IntersectionType } from '@nestjs/swagger';
import { IsISO8601, IsUUID } from 'class-validator';
import { PutScheduleRequest } from '../dto/schedules.dto';
import { AgentScopedMessage } from './user-scoped.message';

export class AgentScheduleMessage extends AgentScopedMessage {}
export class PutScheduleMessage extends IntersectionType(PutScheduleRequest, AgentScopedMessage) {}

/** scheduler-service → runs-service: start the run of one fire; the fire time makes it idempotent. */
export class StartScheduledRunMessage {
  @IsUUID()
  user_id!: string;

  @IsUUID()
  agent_id!: string;

  @IsISO8601({ strict: true })
  fire_time!: string;
}

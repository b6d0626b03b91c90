import { IsISO8601, IsString, IsUUID, MaxLength } from 'class-validator';
import { PutScheduleRequest } from '../dto/schedules.dto';

export class AgentScheduleMessage {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;
}

export class PutScheduleMessage extends PutScheduleRequest {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;
}

/** scheduler-service → runs-service: start the run of one fire; the fire time makes it idempotent. */
export class StartScheduledRunMessage {
  @IsUUID()
  user_id!: string;

  @IsUUID()
  agent_id!: string;

  @IsISO8601({ strict: true })
  fire_time!: string;
}

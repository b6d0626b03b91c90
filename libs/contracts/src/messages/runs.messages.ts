import { IsString, IsUUID, MaxLength } from 'class-validator';
import { CancelRunRequest, ListRunsQuery, RunEventsQuery, StartRunRequest } from '../dto/runs.dto';

export class StartRunMessage extends StartRunRequest {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;
}

export class RunRefMessage {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;

  @IsString()
  @MaxLength(256)
  run_id!: string;
}

export class CancelRunMessage extends CancelRunRequest {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;

  @IsString()
  @MaxLength(256)
  run_id!: string;
}

export class ListRunsMessage extends ListRunsQuery {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;
}

export class RunEventsMessage extends RunEventsQuery {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;

  @IsString()
  @MaxLength(256)
  run_id!: string;
}

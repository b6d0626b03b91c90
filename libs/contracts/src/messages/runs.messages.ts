import { IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { CancelRunRequest, ListRunsQuery, RunEventsQuery, StartRunRequest } from '../dto/runs.dto';

export class StartRunMessage extends StartRunRequest {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;

  /** The Idempotency-Key header: 1-255 visible ASCII characters. */
  @IsOptional()
  @Matches(/^[\x21-\x7e]{1,255}$/, { message: 'Idempotency-Key must be 1-255 visible ASCII characters' })
  idempotency_key?: string;
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

/** runs-service asks agents-service for what a run needs of its agent. */
export class AgentContextMessage {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;
}

export interface AgentContext {
  agent_id: string;
  user_email: string;
  deployment_state: 'deployed' | 'not_deployed';
  instructions: { content: string; plan_steps: unknown[] | null } | null;
}

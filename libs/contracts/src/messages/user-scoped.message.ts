import { IsString, IsUUID, MaxLength } from 'class-validator';

/*
 * What every message on behalf of a caller carries: the user the gateway
 * resolved from the key, and the path ids. Path ids stay plain strings here; a
 * malformed one is answered as not found by the service, never as a 400.
 */

export class UserScopedMessage {
  @IsUUID()
  user_id!: string;
}

export class AgentScopedMessage extends UserScopedMessage {
  @IsString()
  @MaxLength(256)
  agent_id!: string;
}

export class RunScopedMessage extends AgentScopedMessage {
  @IsString()
  @MaxLength(256)
  run_id!: string;
}

export class WebhookScopedMessage extends AgentScopedMessage {
  @IsString()
  @MaxLength(256)
  webhook_id!: string;
}

export class WorkspaceScopedMessage extends UserScopedMessage {
  @IsString()
  @MaxLength(256)
  workspace_id!: string;
}

import { IsString, IsUUID, MaxLength } from 'class-validator';
import { CreateAgentRequest, ListAgentsQuery, MoveAgentRequest } from '../dto/agents.dto';
import { InstructionHistoryQuery, PutInstructionsRequest } from '../dto/instructions.dto';
import { CreateWorkspaceRequest, ReorderWorkspacesRequest, UpdateWorkspaceRequest } from '../dto/workspaces.dto';

/*
 * Messages from the gateway to agents-service: the HTTP request's fields plus
 * the caller (user_id) and the path ids. Path ids stay plain strings here; a
 * malformed one is answered as not found by the service, never as a 400.
 */

export class ListAgentsMessage extends ListAgentsQuery {
  @IsUUID()
  user_id!: string;
}

export class CreateAgentMessage extends CreateAgentRequest {
  @IsUUID()
  user_id!: string;
}

export class AgentRefMessage {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;
}

export class MoveAgentMessage extends MoveAgentRequest {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;
}

export class CreateWorkspaceMessage extends CreateWorkspaceRequest {
  @IsUUID()
  user_id!: string;
}

export class UpdateWorkspaceMessage extends UpdateWorkspaceRequest {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  workspace_id!: string;
}

export class WorkspaceRefMessage {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  workspace_id!: string;
}

export class ReorderWorkspacesMessage extends ReorderWorkspacesRequest {
  @IsUUID()
  user_id!: string;
}

export class PutInstructionsMessage extends PutInstructionsRequest {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;
}

export class InstructionHistoryMessage extends InstructionHistoryQuery {
  @IsUUID()
  user_id!: string;

  @IsString()
  @MaxLength(256)
  agent_id!: string;
}

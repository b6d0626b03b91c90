import { IntersectionType } from '@nestjs/swagger';
import { IsInt, IsOptional, Min } from 'class-validator';
import { CreateAgentRequest, ListAgentsQuery, MoveAgentRequest, UpdateAgentRequest } from '../dto/agents.dto';
import { InstructionHistoryQuery, PutInstructionsRequest } from '../dto/instructions.dto';
import { CreateWorkspaceRequest, ReorderWorkspacesRequest, UpdateWorkspaceRequest } from '../dto/workspaces.dto';
import { AgentScopedMessage, UserScopedMessage, WorkspaceScopedMessage } from './user-scoped.message';

/** Messages from the gateway to agents-service: the request's fields plus the caller and path ids. */
export class ListAgentsMessage extends IntersectionType(ListAgentsQuery, UserScopedMessage) {}
export class CreateAgentMessage extends IntersectionType(CreateAgentRequest, UserScopedMessage) {}
export class AgentRefMessage extends AgentScopedMessage {}
export class MoveAgentMessage extends IntersectionType(MoveAgentRequest, AgentScopedMessage) {}
export class UpdateAgentMessage extends IntersectionType(UpdateAgentRequest, AgentScopedMessage) {}
export class CreateWorkspaceMessage extends IntersectionType(CreateWorkspaceRequest, UserScopedMessage) {}
export class UpdateWorkspaceMessage extends IntersectionType(UpdateWorkspaceRequest, WorkspaceScopedMessage) {}
export class WorkspaceRefMessage extends WorkspaceScopedMessage {}
export class ReorderWorkspacesMessage extends IntersectionType(ReorderWorkspacesRequest, UserScopedMessage) {}
export class PutInstructionsMessage extends IntersectionType(PutInstructionsRequest, AgentScopedMessage) {
  /** Set by a build run (runs-service): written only if the agent is still that generation (AgentContext). */
  @IsOptional()
  @IsInt()
  @Min(0)
  agent_generation?: number;
}
export class InstructionHistoryMessage extends IntersectionType(InstructionHistoryQuery, AgentScopedMessage) {}

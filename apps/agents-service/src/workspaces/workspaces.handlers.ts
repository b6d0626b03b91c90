import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AgentsPatterns,
  CreateWorkspaceMessage,
  DeleteWorkspaceResponse,
  ReorderWorkspacesMessage,
  ReorderWorkspacesResponse,
  UpdateWorkspaceMessage,
  UserScopedMessage,
  WorkspaceListResponse,
  WorkspaceRefMessage,
  WorkspaceResponse,
} from '@aas/contracts';
import { WorkspacesService } from './workspaces.service';

@Controller()
export class WorkspacesHandlers {
  constructor(private readonly workspaces: WorkspacesService) {}

  @MessagePattern(AgentsPatterns.ListWorkspaces)
  async list(@Payload() message: UserScopedMessage): Promise<WorkspaceListResponse> {
    return { workspaces: await this.workspaces.list(message.user_id) };
  }

  @MessagePattern(AgentsPatterns.CreateWorkspace)
  async create(@Payload() message: CreateWorkspaceMessage): Promise<WorkspaceResponse> {
    return { workspace: await this.workspaces.create(message.user_id, message.name) };
  }

  @MessagePattern(AgentsPatterns.UpdateWorkspace)
  async update(@Payload() message: UpdateWorkspaceMessage): Promise<WorkspaceResponse> {
    return { workspace: await this.workspaces.update(message) };
  }

  @MessagePattern(AgentsPatterns.DeleteWorkspace)
  delete(@Payload() message: WorkspaceRefMessage): Promise<DeleteWorkspaceResponse> {
    return this.workspaces.delete(message.user_id, message.workspace_id);
  }

  @MessagePattern(AgentsPatterns.ReorderWorkspaces)
  reorder(@Payload() message: ReorderWorkspacesMessage): Promise<ReorderWorkspacesResponse> {
    return this.workspaces.reorder(message.user_id, message.workspace_ids);
  }
}

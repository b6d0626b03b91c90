import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AgentsPatterns,
  CreateWorkspaceMessage,
  DeleteWorkspaceResponse,
  HandlesRequest,
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

  @HandlesRequest(AgentsPatterns.ListWorkspaces)
  async list(@Payload() message: UserScopedMessage): Promise<WorkspaceListResponse> {
    return { workspaces: await this.workspaces.list(message.user_id) };
  }

  @HandlesRequest(AgentsPatterns.CreateWorkspace)
  async create(@Payload() message: CreateWorkspaceMessage): Promise<WorkspaceResponse> {
    return { workspace: await this.workspaces.create(message.user_id, message.name) };
  }

  @HandlesRequest(AgentsPatterns.UpdateWorkspace)
  async update(@Payload() message: UpdateWorkspaceMessage): Promise<WorkspaceResponse> {
    return { workspace: await this.workspaces.update(message) };
  }

  @HandlesRequest(AgentsPatterns.DeleteWorkspace)
  delete(@Payload() message: WorkspaceRefMessage): Promise<DeleteWorkspaceResponse> {
    return this.workspaces.delete(message.user_id, message.workspace_id);
  }

  @HandlesRequest(AgentsPatterns.ReorderWorkspaces)
  reorder(@Payload() message: ReorderWorkspacesMessage): Promise<ReorderWorkspacesResponse> {
    return this.workspaces.reorder(message.user_id, message.workspace_ids);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import {
  AgentsPatterns,
  CreateWorkspaceRequest,
  DeleteWorkspaceResponse,
  ReorderWorkspacesRequest,
  ReorderWorkspacesResponse,
  UpdateWorkspaceRequest,
  WorkspaceListResponse,
  WorkspaceResponse,
} from '@aas/contracts';
import { CallerId, RequestId } from '../caller/caller';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { ServiceClient } from '@aas/platform';

@ApiTags('Workspaces')
@Controller('v1/workspaces')
export class WorkspacesController {
  constructor(private readonly services: ServiceClient) {}

  @Get()
  @ApiOperation({ summary: 'List the workspaces of the caller in display order' })
  @ApiOkResponse({ type: WorkspaceListResponse })
  @ApiProblems(401)
  list(@CallerId() userId: string, @RequestId() requestId: string): Promise<WorkspaceListResponse> {
    return this.services.request(AgentsPatterns.ListWorkspaces, { user_id: userId }, requestId);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a workspace' })
  @ApiCreatedResponse({ type: WorkspaceResponse })
  @ApiProblems(400, 401, 422)
  create(
    @CallerId() userId: string,
    @RequestId() requestId: string,
    @Body() body: CreateWorkspaceRequest,
  ): Promise<WorkspaceResponse> {
    return this.services.request(AgentsPatterns.CreateWorkspace, { ...body, user_id: userId }, requestId);
  }

  // Declared before the ':workspace_id' routes so 'reorder' is never taken for a workspace id.
  @Post('reorder')
  @HttpCode(200)
  @ApiOperation({ summary: 'Set the display order of the workspaces of the caller' })
  @ApiOkResponse({ type: ReorderWorkspacesResponse })
  @ApiProblems(400, 401)
  reorder(
    @CallerId() userId: string,
    @RequestId() requestId: string,
    @Body() body: ReorderWorkspacesRequest,
  ): Promise<ReorderWorkspacesResponse> {
    return this.services.request(AgentsPatterns.ReorderWorkspaces, { ...body, user_id: userId }, requestId);
  }

  @Put(':workspace_id')
  @ApiOperation({ summary: 'Rename a workspace or change its icon' })
  @ApiParam({ name: 'workspace_id' })
  @ApiOkResponse({ type: WorkspaceResponse })
  @ApiProblems(400, 401, 404)
  update(
    @CallerId() userId: string,
    @RequestId() requestId: string,
    @Param('workspace_id') workspaceId: string,
    @Body() body: UpdateWorkspaceRequest,
  ): Promise<WorkspaceResponse> {
    return this.services.request(
      AgentsPatterns.UpdateWorkspace,
      { ...body, user_id: userId, workspace_id: workspaceId },
      requestId,
    );
  }

  @Delete(':workspace_id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Permanently delete a workspace and all agents in it' })
  @ApiParam({ name: 'workspace_id' })
  @ApiOkResponse({ type: DeleteWorkspaceResponse })
  @ApiProblems(401, 404)
  remove(
    @CallerId() userId: string,
    @RequestId() requestId: string,
    @Param('workspace_id') workspaceId: string,
  ): Promise<DeleteWorkspaceResponse> {
    return this.services.request(
      AgentsPatterns.DeleteWorkspace,
      { user_id: userId, workspace_id: workspaceId },
      requestId,
    );
  }
}

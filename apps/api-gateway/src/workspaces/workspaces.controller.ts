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
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { ApiProblems } from '../openapi/api-problems.decorator';

@ApiTags('Workspaces')
@Controller('v1/workspaces')
export class WorkspacesController {
  constructor(private readonly services: CallerServices) {}

  @Get()
  @ApiOperation({ summary: 'List the workspaces of the caller in display order' })
  @ApiOkResponse({ type: WorkspaceListResponse })
  @ApiProblems(401)
  list(@Caller() caller: Caller): Promise<WorkspaceListResponse> {
    return this.services.request(caller, AgentsPatterns.ListWorkspaces, {});
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a workspace' })
  @ApiCreatedResponse({ type: WorkspaceResponse })
  @ApiProblems(400, 401, 422)
  create(
    @Caller() caller: Caller,
    @Body() body: CreateWorkspaceRequest,
  ): Promise<WorkspaceResponse> {
    return this.services.request(caller, AgentsPatterns.CreateWorkspace, { ...body });
  }

  // Declared before the ':workspace_id' routes so 'reorder' is never taken for a workspace id.
  @Post('reorder')
  @HttpCode(200)
  @ApiOperation({ summary: 'Set the display order of the workspaces of the caller' })
  @ApiOkResponse({ type: ReorderWorkspacesResponse })
  @ApiProblems(400, 401)
  reorder(
    @Caller() caller: Caller,
    @Body() body: ReorderWorkspacesRequest,
  ): Promise<ReorderWorkspacesResponse> {
    return this.services.request(caller, AgentsPatterns.ReorderWorkspaces, { ...body });
  }

  @Put(':workspace_id')
  @ApiOperation({ summary: 'Rename a workspace or change its icon' })
  @ApiParam({ name: 'workspace_id' })
  @ApiOkResponse({ type: WorkspaceResponse })
  @ApiProblems(400, 401, 404)
  update(
    @Caller() caller: Caller,
    @Param('workspace_id') workspaceId: string,
    @Body() body: UpdateWorkspaceRequest,
  ): Promise<WorkspaceResponse> {
    return this.services.request(caller, AgentsPatterns.UpdateWorkspace,
      { ...body, workspace_id: workspaceId });
  }

  @Delete(':workspace_id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Permanently delete a workspace and all agents in it' })
  @ApiParam({ name: 'workspace_id' })
  @ApiOkResponse({ type: DeleteWorkspaceResponse })
  @ApiProblems(401, 404)
  remove(
    @Caller() caller: Caller,
    @Param('workspace_id') workspaceId: string,
  ): Promise<DeleteWorkspaceResponse> {
    return this.services.request(caller, AgentsPatterns.DeleteWorkspace,
      { workspace_id: workspaceId });
  }
}

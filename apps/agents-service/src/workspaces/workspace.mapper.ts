import { WorkspaceDto } from '@aas/contracts';
import { WorkspaceEntity } from '../database/workspace.entity';

export function toWorkspaceDto(workspace: WorkspaceEntity, agentCount: number): WorkspaceDto {
  return {
    workspace_id: workspace.id,
    name: workspace.name,
    position: workspace.position,
    created_at: workspace.createdAt.toISOString(),
    updated_at: workspace.updatedAt.toISOString(),
    agent_count: agentCount,
    icon_config: workspace.iconConfig,
    run_retention_days: workspace.runRetentionDays,
  };
}

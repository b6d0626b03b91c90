import { AgentDto } from '@aas/contracts';
import { AgentEntity } from '../database/agent.entity';

/** The spec's Agent: nullable fields are present as null; deployed_at only once deployed. */
export function toAgentDto(agent: AgentEntity): AgentDto {
  const dto: AgentDto = {
    agent_id: agent.id,
    unread: agent.unread,
    agent_name: agent.name === null ? null : { name: agent.name, explanation: agent.nameExplanation },
    workspace_id: agent.workspaceId,
    active_build_run_id: agent.activeBuildRunId,
    latest_build_run_id: agent.latestBuildRunId,
    latest_instruction_build_run_id: agent.latestInstructionBuildRunId,
    latest_run_id: agent.latestRunId,
    latest_run_status: agent.latestRunStatus,
    latest_run_is_finished: agent.latestRunIsFinished,
    latest_run_has_pending_input: agent.latestRunHasPendingInput,
    has_runs: agent.hasRuns,
    has_instruction_build: agent.hasInstructionBuild,
    icon_config: agent.iconConfig,
    last_activity_at: agent.lastActivityAt?.toISOString() ?? null,
    last_chat_message: agent.lastChatMessage,
    deployment_state: agent.deploymentState,
  };
  if (agent.deploymentState === 'deployed' && agent.deployedAt) dto.deployed_at = agent.deployedAt.toISOString();
  return dto;
}

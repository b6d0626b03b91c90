import { Column, Entity, PrimaryColumn } from 'typeorm';

export type DeploymentState = 'deployed' | 'not_deployed';

@Entity({ name: 'agents' })
export class AgentEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  /** Insertion order: the list's order and the position a cursor remembers. */
  @Column({ type: 'bigint', insert: false, update: false })
  seq!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ name: 'owner_user_id', type: 'uuid', nullable: true })
  ownerUserId!: string | null;

  @Column({ name: 'is_subagent', type: 'boolean' })
  isSubagent!: boolean;

  @Column({ name: 'derived_from_agent_id', type: 'uuid', nullable: true })
  derivedFromAgentId!: string | null;

  @Column({ type: 'boolean' })
  unread!: boolean;

  @Column({ type: 'text', nullable: true })
  name!: string | null;

  @Column({ name: 'name_explanation', type: 'text', nullable: true })
  nameExplanation!: string | null;

  @Column({ name: 'icon_config', type: 'text', nullable: true })
  iconConfig!: string | null;

  @Column({ name: 'policy_type', type: 'text', nullable: true })
  policyType!: string | null;

  @Column({ name: 'active_build_run_id', type: 'text', nullable: true })
  activeBuildRunId!: string | null;

  @Column({ name: 'latest_build_run_id', type: 'text', nullable: true })
  latestBuildRunId!: string | null;

  @Column({ name: 'latest_instruction_build_run_id', type: 'text', nullable: true })
  latestInstructionBuildRunId!: string | null;

  @Column({ name: 'latest_run_id', type: 'text' })
  latestRunId!: string;

  @Column({ name: 'latest_run_status', type: 'text', nullable: true })
  latestRunStatus!: string | null;

  @Column({ name: 'latest_run_is_finished', type: 'boolean', nullable: true })
  latestRunIsFinished!: boolean | null;

  @Column({ name: 'latest_run_has_pending_input', type: 'boolean', nullable: true })
  latestRunHasPendingInput!: boolean | null;

  @Column({ name: 'has_runs', type: 'boolean' })
  hasRuns!: boolean;

  @Column({ name: 'has_instruction_build', type: 'boolean' })
  hasInstructionBuild!: boolean;

  @Column({ name: 'last_activity_at', type: 'timestamptz', nullable: true })
  lastActivityAt!: Date | null;

  @Column({ name: 'last_chat_message', type: 'text', nullable: true })
  lastChatMessage!: string | null;

  @Column({ name: 'deployment_state', type: 'text' })
  deploymentState!: DeploymentState;

  @Column({ name: 'deployed_at', type: 'timestamptz', nullable: true })
  deployedAt!: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

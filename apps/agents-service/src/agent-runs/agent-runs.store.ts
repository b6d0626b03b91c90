import { AgentContext, AgentOfUser, AgentStartContext, LiveAgent, OwnedAgent, RunRetentionsResponse } from '@aas/contracts';

/** An agent as a run sees it: agent, owner and current instructions joined. */
export interface AgentContextRow {
  agent_id: string;
  generation: string;
  user_email: string;
  deployment_state: AgentContext['deployment_state'];
  content: string | null;
  plan_steps: unknown[] | null;
  version_id: string | null;
}

/** Where a run stands, for the agent fields that summarise its runs. */
export interface RunSnapshot {
  runId: string;
  runNumber: number;
  /** Orders the snapshots of one run: with runNumber, what "newer" means. */
  seq: number;
  status: string;
  isFinished: boolean;
  hasPendingInput: boolean;
  at: string;
  /** Absent: the agent keeps the one it has. */
  lastChatMessage: string | null;
  /** Null: the agent keeps the one it has. */
  policyType: string | null;
}

/** Where a build run stands, for the agent's build fields. */
export interface BuildRunSnapshot {
  runId: string;
  runNumber: number;
  seq: number;
  isFinished: boolean;
  wroteInstructions: boolean;
}

/**
 * The statements of agents-service for other services: whether an agent is a user's, the agent context runs ask for, and the agent fields
 * their progress updates. Each update is one conditional statement: it applies only when its
 * snapshot is newer than the one the agent reflects, and (with a generation) only to that
 * generation of the agent, so events applied twice or out of order change nothing.
 * (postgres-agent-runs.store.ts; an abstract class, so that it is the injection token and a fake can stand in for it.)
 */
export abstract class AgentRunsStore {
  /** The agent if it is the user's. */
  abstract owned(agentId: string, userId: string): Promise<OwnedAgent | undefined>;
  abstract context(agentId: string, userId: string): Promise<AgentContextRow | undefined>;
  /** Those of the (agent, user) pairs that exist; the others are left out. */
  abstract startContexts(pairs: AgentOfUser[]): Promise<AgentStartContext[]>;
  /** The user's agents, in one workspace or the one agent when asked, oldest first. */
  abstract liveAgents(userId: string, only: { workspaceId?: string; agentId?: string }): Promise<LiveAgent[]>;
  /** The agents of every workspace whose run_retention_days is set, grouped by that value (smallest first, agent ids sorted). */
  abstract runRetentions(): Promise<RunRetentionsResponse['retentions']>;
  /** latest_run_*, has_runs, last_activity_at, last_chat_message and policy_type. */
  abstract recordRun(agentId: string, generation: number | null, run: RunSnapshot): Promise<void>;
  /** latest_build_run_*, active_build_run_id (null once finished), has_instruction_build, latest_instruction_build_run_id. */
  abstract recordBuildRun(agentId: string, generation: number | null, build: BuildRunSnapshot): Promise<void>;
  /** Deployed, at the latest of the deployment times seen. */
  abstract recordDeployment(agentId: string, generation: number | null, deployedAt: string): Promise<void>;
  /** The name a build run gave the agent (its `agent_name` line). */
  abstract recordAgentName(agentId: string, generation: number | null, name: string, explanation: string | null): Promise<void>;
}

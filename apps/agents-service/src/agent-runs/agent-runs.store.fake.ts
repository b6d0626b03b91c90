import { AgentOfUser, AgentStartContext, LiveAgent, OwnedAgent, RunRetentionsResponse } from '@aas/contracts';
import { AgentRow, InMemoryDatabase } from '../database/in-memory-database.fake';
import { AgentContextRow, AgentRunsStore, BuildRunSnapshot, RunSnapshot } from './agent-runs.store';

export class FakeAgentRunsStore implements AgentRunsStore {
  constructor(private readonly db: InMemoryDatabase) {}

  async owned(agentId: string, userId: string): Promise<OwnedAgent | undefined> {
    const agent = this.db.tables.agents.find((a) => a.id === agentId && a.userId === userId);
    return agent && { agent_id: agent.id, generation: Number(agent.seq), deployment_state: agent.deploymentState };
  }

  async context(agentId: string, userId: string): Promise<AgentContextRow | undefined> {
    const agent = this.db.tables.agents.find((a) => a.id === agentId && a.userId === userId);
    if (!agent) return undefined;
    const instructions = this.db.tables.instructions.find((i) => i.agentId === agentId);
    return {
      agent_id: agent.id,
      generation: agent.seq,
      user_email: this.emailOf(agent.userId),
      deployment_state: agent.deploymentState,
      content: instructions?.content ?? null,
      plan_steps: instructions?.planSteps ?? null,
      version_id: instructions ? String(instructions.versionId) : null,
    };
  }

  async startContexts(pairs: AgentOfUser[]): Promise<AgentStartContext[]> {
    return this.db.tables.agents
      .filter((a) => pairs.some((p) => p.agent_id === a.id && p.user_id === a.userId))
      .map((a) => ({
        agent_id: a.id,
        generation: Number(a.seq),
        user_id: a.userId,
        user_email: this.emailOf(a.userId),
        deployment_state: a.deploymentState,
      }));
  }

  async liveAgents(userId: string, only: { workspaceId?: string; agentId?: string }): Promise<LiveAgent[]> {
    return this.db.tables.agents
      .filter((a) => a.userId === userId && (!only.workspaceId || a.workspaceId === only.workspaceId) && (!only.agentId || a.id === only.agentId))
      .sort((a, b) => Number(a.seq) - Number(b.seq))
      .map((a) => ({ agent_id: a.id, generation: Number(a.seq) }));
  }

  async runRetentions(): Promise<RunRetentionsResponse['retentions']> {
    const byDays = new Map<number, string[]>();
    for (const w of this.db.tables.workspaces) {
      if (w.runRetentionDays === null) continue;
      const agents = this.db.tables.agents.filter((a) => a.workspaceId === w.id).map((a) => a.id);
      if (agents.length > 0) byDays.set(w.runRetentionDays, [...(byDays.get(w.runRetentionDays) ?? []), ...agents]);
    }
    return [...byDays].sort(([a], [b]) => a - b).map(([days, ids]) => ({ days, agent_ids: ids.sort() }));
  }

  async recordRun(agentId: string, generation: number | null, run: RunSnapshot): Promise<void> {
    const agent = this.agentOf(agentId, generation);
    if (!agent || !before([agent.latestRunNumber, agent.latestRunSeq], [run.runNumber, run.seq])) return;
    Object.assign(agent, {
      latestRunId: run.runId,
      latestRunStatus: run.status,
      latestRunIsFinished: run.isFinished,
      latestRunHasPendingInput: run.hasPendingInput,
      hasRuns: true,
      lastActivityAt: new Date(run.at),
      lastChatMessage: run.lastChatMessage ?? agent.lastChatMessage,
      policyType: run.policyType ?? agent.policyType,
      latestRunNumber: run.runNumber,
      latestRunSeq: run.seq,
    });
  }

  async recordBuildRun(agentId: string, generation: number | null, build: BuildRunSnapshot): Promise<void> {
    const agent = this.agentOf(agentId, generation);
    if (!agent || !before([agent.latestBuildRunNumber, agent.latestBuildRunSeq], [build.runNumber, build.seq])) return;
    Object.assign(agent, {
      latestBuildRunId: build.runId,
      activeBuildRunId: build.isFinished ? null : build.runId,
      hasInstructionBuild: true,
      latestBuildRunNumber: build.runNumber,
      latestBuildRunSeq: build.seq,
      latestInstructionBuildRunId: build.wroteInstructions ? build.runId : agent.latestInstructionBuildRunId,
    });
  }

  async recordDeployment(agentId: string, generation: number | null, deployedAt: string): Promise<void> {
    const agent = this.agentOf(agentId, generation);
    if (!agent) return;
    const at = new Date(deployedAt);
    agent.deploymentState = 'deployed';
    agent.deployedAt = agent.deployedAt && agent.deployedAt > at ? agent.deployedAt : at;
  }

  async recordAgentName(agentId: string, generation: number | null, name: string, explanation: string | null): Promise<void> {
    const agent = this.agentOf(agentId, generation);
    if (!agent) return;
    agent.name = name;
    agent.nameExplanation = explanation;
  }

  /** The agent, if it is of `generation` (any, when null). */
  private agentOf(agentId: string, generation: number | null): AgentRow | undefined {
    return this.db.tables.agents.find((a) => a.id === agentId && (generation === null || Number(a.seq) === generation));
  }

  private emailOf(userId: string): string {
    return this.db.tables.users.find((u) => u.id === userId)!.email;
  }
}

/** Row comparison, as PostgreSQL's (a, b) < (c, d). */
function before(held: [number, number], next: [number, number]): boolean {
  return held[0] < next[0] || (held[0] === next[0] && held[1] < next[1]);
}

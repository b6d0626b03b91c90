import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InstructionVersion, InstructionsSummary, RestPlanStep, RunInstructionsVersion } from '@aas/contracts';
import { QuotaExceededError, ResourceNotFoundError } from '@aas/problem-details';
import { createHash } from 'node:crypto';
import { AgentsService } from '../agents/agents.service';
import { AgentsEnv } from '../config/agents.env';
import { UserStore } from '../users/user.store';
import { InstructionStore } from './instruction.store';
import { toInstructionVersion, toInstructionsSummary } from './instructions.mapper';
import { Transaction, Transactions } from '@aas/platform';

export interface InstructionsWrite {
  content: string;
  sourceType?: string;
  sourceId?: string;
  planSteps?: RestPlanStep[];
  /** A build run's write: only into the generation of the agent the run belongs to. */
  agentGeneration?: number;
  /**
   * A write delivered by event (at least once): nothing is added when the agent's current
   * instructions are already this content from this source, so a redelivery adds no second version.
   */
  unlessCurrent?: boolean;
}

@Injectable()
export class InstructionsService {
  constructor(
    private readonly instructions: InstructionStore,
    private readonly users: UserStore,
    private readonly transactions: Transactions,
    private readonly agents: AgentsService,
    private readonly config: ConfigService<AgentsEnv, true>,
  ) {}

  async get(userId: string, agentId: string): Promise<InstructionsSummary | null> {
    const agent = await this.agents.find(userId, agentId);
    const instructions = await this.instructions.current(agent.id);
    if (!instructions) return null;
    const user = await this.users.findById(userId);
    if (!user) throw new ResourceNotFoundError('User', userId);
    return toInstructionsSummary(instructions, { userId, email: user.email });
  }

  /**
   * Adds exactly one version and makes it current, and deletes the versions beyond the newest
   * QUOTA_INSTRUCTION_VERSIONS_KEPT in the same transaction. The agent row is locked so concurrent
   * writes of one agent are applied in the order of their versions (and prune one after the other).
   */
  async put(userId: string, agentId: string, write: InstructionsWrite): Promise<void> {
    this.checkSize(write);
    await this.transactions.run(async (tx) => {
      const agent = await this.agents.find(userId, agentId, { tx, lock: true });
      // A build run of a deleted agent must not write into a new agent that took its id.
      if (write.agentGeneration !== undefined && Number(agent.seq) !== write.agentGeneration) {
        throw new ResourceNotFoundError('Agent', agentId);
      }
      const contentHash = createHash('sha256').update(write.content, 'utf8').digest('hex');
      if (write.unlessCurrent && (await this.isCurrent(tx, agent.id, write, contentHash))) return;
      const version = await this.instructions.addVersion(tx, {
        agentId: agent.id,
        content: write.content,
        sourceType: write.sourceType ?? 'api',
        sourceId: write.sourceId ?? '',
        contentHash,
        planSteps: write.planSteps ?? null,
        createdAt: new Date(),
      });
      await this.instructions.makeCurrent(tx, version);
      await this.pruneVersions(tx, agent.id);
    });
  }

  /**
   * Newest first; `limit` 0 or absent means every kept version. Never more than
   * QUOTA_INSTRUCTION_VERSIONS_KEPT, also for an agent whose older versions a write has not pruned
   * yet (written before the quota, or before it was lowered).
   */
  async history(userId: string, agentId: string, limit?: number): Promise<InstructionVersion[]> {
    const agent = await this.agents.find(userId, agentId);
    const kept = this.config.get('QUOTA_INSTRUCTION_VERSIONS_KEPT', { infer: true });
    const take = kept === 0 ? limit || undefined : Math.min(limit || kept, kept);
    const versions = await this.instructions.versions(agent.id, take);
    return versions.map(toInstructionVersion);
  }

  /**
   * One version as a run is dispatched with it (a replay's pinned version), or null when it is not among
   * the QUOTA_INSTRUCTION_VERSIONS_KEPT newest (pruned, or about to be): history does not show it either.
   */
  async keptVersion(userId: string, agentId: string, versionId: number): Promise<RunInstructionsVersion | null> {
    const agent = await this.agents.find(userId, agentId);
    const kept = this.config.get('QUOTA_INSTRUCTION_VERSIONS_KEPT', { infer: true });
    const version = await this.instructions.keptVersion(agent.id, String(versionId), kept === 0 ? undefined : kept);
    return version && { content: version.content, plan_steps: version.planSteps ?? [], version_id: Number(version.id) };
  }

  /** Read in the transaction that locked the agent: a write of the agent that committed before is seen, none is under way. */
  private async isCurrent(tx: Transaction, agentId: string, write: InstructionsWrite, contentHash: string): Promise<boolean> {
    const current = await this.instructions.current(agentId, tx);
    return current !== null && current.contentHash === contentHash && current.sourceId === (write.sourceId ?? '') && current.sourceType === (write.sourceType ?? 'api');
  }

  /** QUOTA_INSTRUCTIONS_BYTES: the content as UTF-8 plus plan_steps as JSON, as they are stored. */
  private checkSize(write: InstructionsWrite): void {
    const limit = this.config.get('QUOTA_INSTRUCTIONS_BYTES', { infer: true });
    if (limit === 0) return;
    const bytes = Buffer.byteLength(write.content, 'utf8') + (write.planSteps ? Buffer.byteLength(JSON.stringify(write.planSteps), 'utf8') : 0);
    if (bytes > limit) {
      throw new QuotaExceededError(
        `The instructions are ${bytes} bytes (content as UTF-8 plus plan_steps as JSON); one version may have at most ${limit} (quota instructions_bytes)`,
        'instructions_bytes',
        limit,
      );
    }
  }

  /** Keeps the newest QUOTA_INSTRUCTION_VERSIONS_KEPT (0: all); the current version is the newest, so it always stays. */
  private async pruneVersions(tx: Transaction, agentId: string): Promise<void> {
    const kept = this.config.get('QUOTA_INSTRUCTION_VERSIONS_KEPT', { infer: true });
    if (kept === 0) return;
    await this.instructions.deleteAllButNewest(tx, agentId, kept);
  }
}

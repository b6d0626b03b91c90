import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { InstructionVersion, InstructionsSummary, RestPlanStep } from '@aas/contracts';
import { QuotaExceededError, ResourceNotFoundError } from '@aas/problem-details';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AgentsService } from '../agents/agents.service';
import { AgentsEnv } from '../config/agents.env';
import { UserEntity } from '../users/user.entity';
import { InstructionVersionEntity } from './instruction-version.entity';
import { InstructionsEntity } from './instructions.entity';
import { toInstructionVersion, toInstructionsSummary } from './instructions.mapper';

export interface InstructionsWrite {
  content: string;
  sourceType?: string;
  sourceId?: string;
  planSteps?: RestPlanStep[];
  /** A build run's write: only into the generation of the agent the run belongs to. */
  agentGeneration?: number;
}

@Injectable()
export class InstructionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly agents: AgentsService,
    private readonly config: ConfigService<AgentsEnv, true>,
  ) {}

  async get(userId: string, agentId: string): Promise<InstructionsSummary | null> {
    const agent = await this.agents.find(this.dataSource.manager, userId, agentId);
    const instructions = await this.dataSource.manager.findOneBy(InstructionsEntity, { agentId: agent.id });
    if (!instructions) return null;
    const user = await this.dataSource.manager.findOneByOrFail(UserEntity, { id: userId });
    return toInstructionsSummary(instructions, { userId, email: user.email });
  }

  /**
   * Adds exactly one version and makes it current, and deletes the versions beyond the newest
   * QUOTA_INSTRUCTION_VERSIONS_KEPT in the same transaction. The agent row is locked so concurrent
   * writes of one agent are applied in the order of their versions (and prune one after the other).
   */
  async put(userId: string, agentId: string, write: InstructionsWrite): Promise<void> {
    this.checkSize(write);
    await this.dataSource.transaction(async (manager) => {
      const agent = await this.agents.find(manager, userId, agentId, true);
      // A build run of a deleted agent must not write into a new agent that took its id.
      if (write.agentGeneration !== undefined && Number(agent.seq) !== write.agentGeneration) {
        throw new ResourceNotFoundError('Agent', agentId);
      }
      const contentHash = createHash('sha256').update(write.content, 'utf8').digest('hex');
      const version = await manager.save(
        manager.create(InstructionVersionEntity, {
          agentId: agent.id,
          content: write.content,
          sourceType: write.sourceType ?? 'api',
          sourceId: write.sourceId ?? '',
          contentHash,
          planSteps: write.planSteps ?? null,
          createdAt: new Date(),
        }),
      );
      await manager.upsert(
        InstructionsEntity,
        {
          agentId: agent.id,
          versionId: version.id,
          content: version.content,
          sourceType: version.sourceType,
          sourceId: version.sourceId,
          contentHash,
          planSteps: version.planSteps,
          updatedAt: version.createdAt,
        },
        ['agentId'],
      );
      await this.pruneVersions(manager, agent.id);
    });
  }

  /**
   * Newest first; `limit` 0 or absent means every kept version. Never more than
   * QUOTA_INSTRUCTION_VERSIONS_KEPT, also for an agent whose older versions a write has not pruned
   * yet (written before the quota, or before it was lowered).
   */
  async history(userId: string, agentId: string, limit?: number): Promise<InstructionVersion[]> {
    const agent = await this.agents.find(this.dataSource.manager, userId, agentId);
    const kept = this.config.get('QUOTA_INSTRUCTION_VERSIONS_KEPT', { infer: true });
    const take = kept === 0 ? limit || undefined : Math.min(limit || kept, kept);
    const versions = await this.dataSource.manager.find(InstructionVersionEntity, {
      // Not plan_steps: the history does not show them, and they can be most of a version's bytes.
      select: { id: true, agentId: true, content: true, sourceType: true, sourceId: true, contentHash: true, createdAt: true },
      where: { agentId: agent.id },
      order: { id: 'DESC' },
      take,
    });
    return versions.map(toInstructionVersion);
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

  /** Deletes every version older than the newest `kept`; the current version is the newest, so it always stays. */
  private async pruneVersions(manager: EntityManager, agentId: string): Promise<void> {
    const kept = this.config.get('QUOTA_INSTRUCTION_VERSIONS_KEPT', { infer: true });
    if (kept === 0) return;
    await manager.query(
      `DELETE FROM instruction_versions
        WHERE agent_id = $1
          AND id < (SELECT id FROM instruction_versions WHERE agent_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
      [agentId, kept - 1],
    );
  }
}

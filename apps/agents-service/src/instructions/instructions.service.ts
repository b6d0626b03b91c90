import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { InstructionVersion, InstructionsSummary, RestPlanStep } from '@aas/contracts';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AgentsService } from '../agents/agents.service';
import { UserEntity } from '../users/user.entity';
import { InstructionVersionEntity } from './instruction-version.entity';
import { InstructionsEntity } from './instructions.entity';
import { toInstructionVersion, toInstructionsSummary } from './instructions.mapper';

export interface InstructionsWrite {
  content: string;
  sourceType?: string;
  sourceId?: string;
  planSteps?: RestPlanStep[];
}

@Injectable()
export class InstructionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly agents: AgentsService,
  ) {}

  async get(userId: string, agentId: string): Promise<InstructionsSummary | null> {
    const agent = await this.agents.find(this.dataSource.manager, userId, agentId);
    const instructions = await this.dataSource.manager.findOneBy(InstructionsEntity, { agentId: agent.id });
    if (!instructions) return null;
    const user = await this.dataSource.manager.findOneByOrFail(UserEntity, { id: userId });
    return toInstructionsSummary(instructions, { userId, email: user.email });
  }

  /**
   * Adds exactly one version and makes it current. The agent row is locked so
   * concurrent writes of one agent are applied in the order of their versions.
   */
  async put(userId: string, agentId: string, write: InstructionsWrite): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const agent = await this.agents.find(manager, userId, agentId, true);
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
    });
  }

  /** Newest first; `limit` 0 or absent means every version. */
  async history(userId: string, agentId: string, limit?: number): Promise<InstructionVersion[]> {
    const agent = await this.agents.find(this.dataSource.manager, userId, agentId);
    const versions = await this.dataSource.manager.find(InstructionVersionEntity, {
      where: { agentId: agent.id },
      order: { id: 'DESC' },
      take: limit || undefined,
    });
    return versions.map(toInstructionVersion);
  }
}

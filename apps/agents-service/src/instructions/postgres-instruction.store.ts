import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { InstructionVersionEntity } from '../database/instruction-version.entity';
import { InstructionsEntity } from '../database/instructions.entity';
import { InstructionStore, ListedInstructionVersion, NewInstructionVersion } from './instruction.store';
import { managerOf, Transaction } from '@aas/platform';

/** The instruction store on PostgreSQL: TypeORM's entity API, and SQL for the pruning. */
@Injectable()
export class PostgresInstructionStore extends InstructionStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  current(agentId: string, tx?: Transaction): Promise<InstructionsEntity | null> {
    return managerOf(this.dataSource, tx).findOneBy(InstructionsEntity, { agentId });
  }

  addVersion(tx: Transaction, version: NewInstructionVersion): Promise<InstructionVersionEntity> {
    const manager = managerOf(this.dataSource, tx);
    return manager.save(manager.create(InstructionVersionEntity, version));
  }

  async makeCurrent(tx: Transaction, version: InstructionVersionEntity): Promise<void> {
    await managerOf(this.dataSource, tx).upsert(
      InstructionsEntity,
      {
        agentId: version.agentId,
        versionId: version.id,
        content: version.content,
        sourceType: version.sourceType,
        sourceId: version.sourceId,
        contentHash: version.contentHash,
        planSteps: version.planSteps,
        updatedAt: version.createdAt,
      },
      ['agentId'],
    );
  }

  async deleteAllButNewest(tx: Transaction, agentId: string, kept: number): Promise<void> {
    await managerOf(this.dataSource, tx).query(
      `DELETE FROM instruction_versions
        WHERE agent_id = $1
          AND id < (SELECT id FROM instruction_versions WHERE agent_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
      [agentId, kept - 1],
    );
  }

  /** Fewer than `kept` newer versions: a version the next write would not prune (nor history hide) yet. */
  keptVersion(agentId: string, versionId: string, kept: number | undefined): Promise<InstructionVersionEntity | null> {
    const q = this.dataSource.manager
      .createQueryBuilder(InstructionVersionEntity, 'v')
      .where('v.agent_id = :agentId AND v.id = :versionId', { agentId, versionId });
    if (kept !== undefined) {
      q.andWhere('(SELECT count(*) FROM instruction_versions n WHERE n.agent_id = v.agent_id AND n.id > v.id) < :kept', { kept });
    }
    return q.getOne();
  }

  versions(agentId: string, take: number | undefined): Promise<ListedInstructionVersion[]> {
    return this.dataSource.manager.find(InstructionVersionEntity, {
      select: { id: true, agentId: true, content: true, sourceType: true, sourceId: true, contentHash: true, createdAt: true },
      where: { agentId },
      order: { id: 'DESC' },
      take,
    });
  }
}

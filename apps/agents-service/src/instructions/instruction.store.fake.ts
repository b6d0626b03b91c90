import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { InstructionVersionEntity } from '../database/instruction-version.entity';
import { InstructionStore, ListedInstructionVersion, NewInstructionVersion } from './instruction.store';
import { InstructionsEntity } from '../database/instructions.entity';
import { Transaction } from '@aas/platform';

export class FakeInstructionStore implements InstructionStore {
  constructor(private readonly db: InMemoryDatabase) {}

  async current(agentId: string, tx?: Transaction): Promise<InstructionsEntity | null> {
    if (tx !== undefined) this.db.inTransaction(tx);
    const row = this.db.tables.instructions.find((i) => i.agentId === agentId);
    return row ? { ...row } : null;
  }

  async addVersion(tx: Transaction, version: NewInstructionVersion): Promise<InstructionVersionEntity> {
    this.db.inTransaction(tx);
    if (!this.db.tables.agents.some((a) => a.id === version.agentId)) throw new Error('foreign key: no such agent');
    const row: InstructionVersionEntity = { ...version, id: String(++this.db.tables.sequences.versionId) };
    this.db.tables.instructionVersions.push(row);
    return { ...row };
  }

  async makeCurrent(tx: Transaction, version: InstructionVersionEntity): Promise<void> {
    this.db.inTransaction(tx);
    const current: InstructionsEntity = {
      agentId: version.agentId,
      versionId: version.id,
      content: version.content,
      sourceType: version.sourceType,
      sourceId: version.sourceId,
      contentHash: version.contentHash,
      planSteps: version.planSteps,
      updatedAt: version.createdAt,
    };
    this.db.tables.instructions = [...this.db.tables.instructions.filter((i) => i.agentId !== version.agentId), current];
  }

  async deleteAllButNewest(tx: Transaction, agentId: string, kept: number): Promise<void> {
    this.db.inTransaction(tx);
    const t = this.db.tables;
    const doomed = new Set(this.newestFirst(agentId).slice(kept).map((v) => v.id));
    // instructions.version_id references its version.
    if (t.instructions.some((i) => doomed.has(i.versionId))) throw new Error('foreign key: the current version would be deleted');
    t.instructionVersions = t.instructionVersions.filter((v) => !doomed.has(v.id));
  }

  async keptVersion(agentId: string, versionId: string, kept: number | undefined): Promise<InstructionVersionEntity | null> {
    const version = this.newestFirst(agentId).slice(0, kept).find((v) => v.id === versionId);
    return version ? { ...version } : null;
  }

  async versions(agentId: string, take: number | undefined): Promise<ListedInstructionVersion[]> {
    return this.newestFirst(agentId)
      .slice(0, take)
      .map(({ planSteps: _planSteps, ...listed }) => listed);
  }

  private newestFirst(agentId: string): InstructionVersionEntity[] {
    return this.db.tables.instructionVersions.filter((v) => v.agentId === agentId).sort((a, b) => Number(b.id) - Number(a.id));
  }
}

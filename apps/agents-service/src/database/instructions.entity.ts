import { Column, Entity, PrimaryColumn } from 'typeorm';
import { InstructionContent } from './instruction-content';

/** The current instructions of an agent: a copy of its newest version. */
@Entity({ name: 'instructions' })
export class InstructionsEntity extends InstructionContent {
  @PrimaryColumn({ name: 'agent_id', type: 'uuid' })
  agentId!: string;

  @Column({ name: 'version_id', type: 'bigint' })
  versionId!: string;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

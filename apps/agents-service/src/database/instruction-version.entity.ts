import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { InstructionContent } from './instruction-content';

@Entity({ name: 'instruction_versions' })
export class InstructionVersionEntity extends InstructionContent {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'agent_id', type: 'uuid' })
  agentId!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

import { RestPlanStep } from '@aas/contracts';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'instruction_versions' })
export class InstructionVersionEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'agent_id', type: 'uuid' })
  agentId!: string;

  @Column({ type: 'text' })
  content!: string;

  @Column({ name: 'source_type', type: 'text' })
  sourceType!: string;

  @Column({ name: 'source_id', type: 'text' })
  sourceId!: string;

  @Column({ name: 'content_hash', type: 'char', length: 64 })
  contentHash!: string;

  @Column({ name: 'plan_steps', type: 'jsonb', nullable: true })
  planSteps!: RestPlanStep[] | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

import { RestPlanStep } from '@aas/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The current instructions of an agent: a copy of its newest version. */
@Entity({ name: 'instructions' })
export class InstructionsEntity {
  @PrimaryColumn({ name: 'agent_id', type: 'uuid' })
  agentId!: string;

  @Column({ name: 'version_id', type: 'bigint' })
  versionId!: string;

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

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

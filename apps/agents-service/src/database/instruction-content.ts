import { RestPlanStep } from '@aas/contracts';
import { Column } from 'typeorm';

/** The columns a version and the current instructions share: what was written, and by whom. */
export abstract class InstructionContent {
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
}

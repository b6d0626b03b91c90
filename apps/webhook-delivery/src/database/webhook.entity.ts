import { WebhookStatus } from '@aas/contracts';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'webhooks' })
export class WebhookEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'agent_id', type: 'uuid' })
  agentId!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  /** The generation of the agent it belongs to (OwnedAgent.generation); null when made by an earlier version. */
  @Column({ name: 'agent_generation', type: 'bigint', nullable: true })
  agentGeneration!: string | null;

  @Column({ type: 'text' })
  url!: string;

  @Column({ type: 'text', array: true })
  events!: string[];

  @Column({ type: 'text' })
  status!: WebhookStatus;

  /** The signing secret, encrypted with WEBHOOK_SECRET_KEY (SecretBox); never returned after creation. */
  @Column({ name: 'secret_sealed', type: 'text' })
  secretSealed!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

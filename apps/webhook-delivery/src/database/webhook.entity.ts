import { WebhookDisabledReason, WebhookStatus } from '@aas/contracts';
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

  /** Attempts in a row without a 2xx; 0 after a success. */
  @Column({ name: 'consecutive_failures', type: 'integer' })
  consecutiveFailures!: number;

  @Column({ name: 'last_success_at', type: 'timestamptz', nullable: true })
  lastSuccessAt!: Date | null;

  /** The last failed attempt's error as the health object shows it. */
  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'last_error_at', type: 'timestamptz', nullable: true })
  lastErrorAt!: Date | null;

  /** Set while disabled; null while active. */
  @Column({ name: 'disabled_reason', type: 'text', nullable: true })
  disabledReason!: WebhookDisabledReason | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

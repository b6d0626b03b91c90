import { TriggerKind, TriggerSourceEvent, TriggerStatus, TriggerVerification } from '@aas/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A way to start an agent from outside: an inbound webhook endpoint, or the end of another agent's run. */
@Entity({ name: 'triggers' })
export class TriggerEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'agent_id', type: 'uuid' })
  agentId!: string;

  /** The generation of its agent (OwnedAgent.generation): a new agent that takes a deleted one's id never gets its triggers. */
  @Column({ name: 'agent_generation', type: 'bigint' })
  agentGeneration!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ type: 'text' })
  kind!: TriggerKind;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  status!: TriggerStatus;

  @Column({ name: 'message_template', type: 'text', nullable: true })
  messageTemplate!: string | null;

  /** webhook: how callers are checked. */
  @Column({ type: 'text', nullable: true })
  verification!: TriggerVerification | null;

  /** webhook: SHA-256 of the URL's token (the token itself is shown once). */
  @Column({ name: 'token_hash', type: 'text', nullable: true })
  tokenHash!: string | null;

  /** webhook: the signing secret, sealed with WEBHOOK_SECRET_KEY (SecretBox). */
  @Column({ name: 'secret_sealed', type: 'text', nullable: true })
  secretSealed!: string | null;

  /** event: the agent whose run ends start this one (always the same user's). */
  @Column({ name: 'source_agent_id', type: 'uuid', nullable: true })
  sourceAgentId!: string | null;

  @Column({ name: 'source_agent_generation', type: 'bigint', nullable: true })
  sourceAgentGeneration!: string | null;

  @Column({ type: 'text', array: true, nullable: true })
  events!: TriggerSourceEvent[] | null;

  @Column({ name: 'last_triggered_at', type: 'timestamptz', nullable: true })
  lastTriggeredAt!: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'last_error_at', type: 'timestamptz', nullable: true })
  lastErrorAt!: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/** One event for one webhook. Its id is sent as the delivery id and stays the same on every attempt. */
@Entity({ name: 'deliveries' })
export class DeliveryEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId!: string;

  /** The lifecycle event it came from: with webhook_id unique, so a re-processed event makes no second delivery. */
  @Column({ name: 'source_event_id', type: 'text' })
  sourceEventId!: string;

  @Column({ type: 'text' })
  event!: string;

  /** The exact bytes sent, so every attempt carries the same body and signature. */
  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'text' })
  status!: DeliveryStatus;

  /** A test event (POST …/test): a sample body, one attempt, never retried. */
  @Column({ type: 'boolean' })
  test!: boolean;

  @Column({ name: 'attempt_count', type: 'integer' })
  attemptCount!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  /** When it became pending (created, or the last redelivery); null before this column existed: created_at then. */
  @Column({ name: 'pending_since', type: 'timestamptz', nullable: true })
  pendingSince!: Date | null;

  /**
   * The chain of triggered runs the delivery's run belongs to (its root run and the run's depth), signed into
   * the aas-chain header of every attempt; null for deliveries made before chains were carried.
   */
  @Column({ name: 'chain_root_id', type: 'uuid', nullable: true })
  chainRootId!: string | null;

  @Column({ name: 'chain_depth', type: 'integer', nullable: true })
  chainDepth!: number | null;

  /** The run the delivery is about (null for test events): deleting the run deletes its deliveries (runs.purged). */
  @Column({ name: 'run_id', type: 'uuid', nullable: true })
  runId!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}

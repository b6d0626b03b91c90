import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** An event written in the same transaction as the change it reports; OutboxRelay publishes it. Each service has this table in its own schema. */
@Entity({ name: 'outbox' })
export class OutboxEventEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  event!: string;

  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  /** The API request that caused the event, passed on to its jobs. */
  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', insert: false, update: false })
  createdAt!: Date;

  /** Insertion order within one timestamp, so events of one transaction keep their order. */
  @Column({ type: 'bigint', insert: false, update: false })
  seq!: string;
}

import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** An event written in the same transaction as the change it reports; OutboxRelay publishes it. */
@Entity({ name: 'outbox' })
export class OutboxEventEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  event!: string;

  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz', insert: false, update: false })
  createdAt!: Date;
}

import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'delivery_attempts' })
export class DeliveryAttemptEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'delivery_id', type: 'uuid' })
  deliveryId!: string;

  @Column({ type: 'integer' })
  attempt!: number;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt!: Date;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode!: number | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody!: string | null;

  /** The headers sent (signatures included; the secret never is); null for attempts recorded before they were kept. */
  @Column({ name: 'request_headers', type: 'jsonb', nullable: true })
  requestHeaders!: Record<string, string> | null;

  /** The answer's headers, bounded (webhook-sender.ts); null when there was no answer. */
  @Column({ name: 'response_headers', type: 'jsonb', nullable: true })
  responseHeaders!: Record<string, string> | null;
}

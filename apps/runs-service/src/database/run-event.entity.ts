import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'run_events' })
export class RunEventEntity {
  @PrimaryColumn({ name: 'run_id', type: 'uuid' })
  runId!: string;

  @PrimaryColumn({ name: 'event_index', type: 'bigint' })
  eventIndex!: string;

  @Column({ name: 'recorded_at', type: 'timestamptz' })
  recordedAt!: Date;

  @Column({ type: 'jsonb' })
  event!: Record<string, unknown>;
}

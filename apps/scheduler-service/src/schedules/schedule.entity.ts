import { MisfirePolicy, OverlapPolicy } from '@aas/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** At most one schedule per agent: the agent id is the key. */
@Entity({ name: 'schedules' })
export class ScheduleEntity {
  @PrimaryColumn({ name: 'agent_id', type: 'uuid' })
  agentId!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  /** The generation of the agent it belongs to (OwnedAgent.generation); null when set by an earlier version. */
  @Column({ name: 'agent_generation', type: 'bigint', nullable: true })
  agentGeneration!: string | null;

  @Column({ type: 'text' })
  cron!: string;

  @Column({ type: 'text', nullable: true })
  timezone!: string | null;

  @Column({ type: 'text' })
  overlap!: OverlapPolicy;

  @Column({ type: 'text' })
  misfire!: MisfirePolicy;

  /** How far back `catch_up` replays missed fires; null unless misfire is catch_up. */
  @Column({ name: 'catch_up_window_seconds', type: 'integer', nullable: true })
  catchUpWindowSeconds!: number | null;

  @Column({ type: 'boolean' })
  paused!: boolean;

  @Column({ name: 'auto_paused', type: 'boolean' })
  autoPaused!: boolean;

  @Column({ name: 'consecutive_failures', type: 'integer' })
  consecutiveFailures!: number;

  /** The next due fire time; null when the schedule is finished (no further fire, or not evaluable). */
  @Column({ name: 'next_run_at', type: 'timestamptz', nullable: true })
  nextRunAt!: Date | null;

  /** The scheduled run still unfinished, for the overlap rule. */
  @Column({ name: 'active_run_id', type: 'uuid', nullable: true })
  activeRunId!: string | null;

  /** Why the last fire failed for good, or why the expression can no longer be evaluated. */
  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'last_error_at', type: 'timestamptz', nullable: true })
  lastErrorAt!: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

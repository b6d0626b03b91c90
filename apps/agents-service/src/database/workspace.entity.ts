import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'workspaces' })
export class WorkspaceEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'icon_config', type: 'text', nullable: true })
  iconConfig!: string | null;

  @Column({ type: 'integer' })
  position!: number;

  /** Days finished runs of its agents are kept (0: forever); null: the installation's RUN_RETENTION_DAYS. */
  @Column({ name: 'run_retention_days', type: 'integer', nullable: true })
  runRetentionDays!: number | null;

  /** Every user has exactly one; it cannot be deleted. */
  @Column({ name: 'is_default', type: 'boolean' })
  isDefault!: boolean;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

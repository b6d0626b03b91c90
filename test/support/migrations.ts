import { DataSource } from 'typeorm';

/**
 * Undoes every migration from the newest down to and including `name`, for a test of that
 * migration's down; the migrations that came after it are undone first, as in a real rollback.
 */
export async function undoMigrationsThrough(dataSource: DataSource, name: string): Promise<void> {
  const timestamp = (migration: { name?: string }) => Number(/(\d+)$/.exec(migration.name ?? '')?.[1] ?? NaN);
  const ordered = [...dataSource.migrations].sort((a, b) => timestamp(a) - timestamp(b));
  const index = ordered.findIndex((m) => m.name === name);
  if (index < 0) throw new Error(`no migration named ${name}`);
  for (let i = ordered.length - 1; i >= index; i--) await dataSource.undoLastMigration({ transaction: 'each' });
}

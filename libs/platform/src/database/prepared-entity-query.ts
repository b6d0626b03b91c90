import type { Pool } from 'pg';
import { DataSource, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * A hot read as a named (prepared) statement: PostgreSQL parses and plans it
 * once per connection instead of on every request, and rows are hydrated into
 * entities straight from the entity's metadata, without a query builder. The
 * statement selects every column of the entity; `where` (with $1, $2, …) is the
 * rest of it.
 */
export class PreparedEntityQuery<E extends ObjectLiteral> {
  private readonly metadata: EntityMetadata;
  private readonly text: string;

  constructor(
    private readonly dataSource: DataSource,
    entity: EntityTarget<E>,
    private readonly name: string,
    where: string,
  ) {
    this.metadata = dataSource.getMetadata(entity);
    const columns = this.metadata.columns.map((column) => `"${column.databaseName}"`).join(', ');
    this.text = `SELECT ${columns} FROM ${this.metadata.tablePath.split('.').map((part) => `"${part}"`).join('.')} WHERE ${where}`;
  }

  async many(values: unknown[]): Promise<E[]> {
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    const { rows } = await pool.query({ name: this.name, text: this.text, values });
    return rows.map((row: Record<string, unknown>) => entityFromRow(this.dataSource, this.metadata, row));
  }

  async one(values: unknown[]): Promise<E | null> {
    return (await this.many(values))[0] ?? null;
  }
}

/**
 * An entity from a row of its table as pg returns it (columns by their database names, e.g.
 * from RETURNING *), converted as TypeORM converts what it loads.
 */
export function entityFromRow<E extends ObjectLiteral>(
  dataSource: DataSource,
  entity: EntityTarget<E> | EntityMetadata,
  row: Record<string, unknown>,
): E {
  const metadata = entity instanceof EntityMetadata ? entity : dataSource.getMetadata(entity);
  const hydrated = metadata.create() as E;
  for (const column of metadata.columns) {
    column.setEntityValue(hydrated, dataSource.driver.prepareHydratedValue(row[column.databaseName], column));
  }
  return hydrated;
}

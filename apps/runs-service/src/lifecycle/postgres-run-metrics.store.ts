import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RunMetricsStore } from './run-metrics.store';

/** Counted in PostgreSQL (partial indexes keep it cheap): the same figure on every replica. */
@Injectable()
export class PostgresRunMetricsStore extends RunMetricsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async unfinishedByStatus(): Promise<Array<{ status: string; count: number }>> {
    const rows: { status: string; count: string }[] = await this.dataSource.query(
      'SELECT status, count(*) AS count FROM runs WHERE NOT is_finished GROUP BY status',
    );
    return rows.map((row) => ({ status: row.status, count: Number(row.count) }));
  }

  async waitingAdmission(): Promise<number> {
    const [row]: { count: string }[] = await this.dataSource.query('SELECT count(*) AS count FROM runs WHERE admitted_at IS NULL AND NOT is_finished');
    return Number(row.count);
  }

  async endsUnpublished(): Promise<number> {
    const [row]: { count: string }[] = await this.dataSource.query('SELECT count(*) AS count FROM run_ends');
    return Number(row.count);
  }
}

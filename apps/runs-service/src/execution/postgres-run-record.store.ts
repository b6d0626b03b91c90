import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { recordEvent } from '@aas/platform';
import { DataSource } from 'typeorm';
import { RunEntity } from '../database/run.entity';
import { RunChange, RunRecordStore } from './run-record.store';

/** Run events and state changes on the runs, run_events and outbox tables (run-record.store.ts). */
@Injectable()
export class PostgresRunRecordStore extends RunRecordStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  find(runId: string): Promise<RunEntity | null> {
    return this.dataSource.manager.findOneBy(RunEntity, { id: runId });
  }

  change<T extends RunChange>(runId: string, decide: (run: RunEntity | null) => T | undefined): Promise<T | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const run = await manager.findOne(RunEntity, { where: { id: runId }, lock: { mode: 'pessimistic_write' } });
      const change = decide(run);
      if (!change) return undefined;
      await manager.query('INSERT INTO run_events (run_id, event_index, recorded_at, event) VALUES ($1, $2, $3, $4::jsonb)', [
        runId,
        change.event.index,
        change.event.at,
        JSON.stringify(change.event.body),
      ]);
      await manager.save(RunEntity, change.run);
      for (const write of change.outbox) await recordEvent(manager, write.event, write.payload);
      return change;
    });
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EventNames, RunsPurgedEvent } from '@aas/contracts';
import { OutboxRelay, Transaction, managerOf, recordEvent } from '@aas/platform';
import { DataSource, In } from 'typeorm';
import { ClaimOutcome, GenerationClaim, claimAgentGenerations, heldGeneration } from '../database/agent-generations';
import { RunEventEntity } from '../database/run-event.entity';
import { RunEntity } from '../database/run.entity';
import { RunStore } from './run.store';

/** Runs and their events on the runs schema (run.store.ts). */
@Injectable()
export class PostgresRunStore extends RunStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRelay,
  ) {
    super();
  }

  findById(runId: string): Promise<RunEntity | null> {
    return this.dataSource.manager.findOneBy(RunEntity, { id: runId });
  }

  findOwned(runId: string, agentId: string, userId: string): Promise<RunEntity | null> {
    return this.dataSource.manager.findOneBy(RunEntity, { id: runId, agentId, userId });
  }

  findByIds(runIds: string[]): Promise<RunEntity[]> {
    return this.dataSource.manager.findBy(RunEntity, { id: In(runIds) });
  }

  events(runId: string, afterIndex: number | undefined, limit: number): Promise<RunEventEntity[]> {
    const query = this.dataSource.manager
      .createQueryBuilder(RunEventEntity, 'e')
      .where('e.run_id = :runId', { runId })
      .orderBy('e.event_index', 'ASC')
      .limit(limit);
    if (afterIndex !== undefined) query.andWhere('e.event_index > :after', { after: afterIndex });
    return query.getMany();
  }

  /** With runs.purged, as the retention purge records it: webhook-delivery then deletes the run's deliveries. */
  async delete(tx: Transaction, runId: string): Promise<void> {
    const manager = managerOf(this.dataSource, tx);
    const { affected } = await manager.delete(RunEntity, { id: runId });
    if (!affected) return;
    await recordEvent(manager, EventNames.RunsPurged, { run_ids: [runId] } satisfies RunsPurgedEvent);
    this.outbox.kickAfterCommit(tx);
  }

  heldGeneration(agentId: string): Promise<number | undefined> {
    return heldGeneration(this.dataSource.manager, agentId);
  }

  claimGeneration(tx: Transaction, claim: GenerationClaim): Promise<ClaimOutcome> {
    return claimAgentGenerations(managerOf(this.dataSource, tx), [claim]);
  }
}

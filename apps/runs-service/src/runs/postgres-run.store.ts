import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { ClaimOutcome, GenerationClaim, claimAgentGenerations, heldGeneration } from '../database/agent-generations';
import { RunEventEntity } from '../database/run-event.entity';
import { RunEntity } from '../database/run.entity';
import { RunStore } from './run.store';

/** Runs and their events on the runs schema (run.store.ts). */
@Injectable()
export class PostgresRunStore extends RunStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
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

  async delete(runId: string): Promise<void> {
    await this.dataSource.manager.delete(RunEntity, { id: runId });
  }

  heldGeneration(agentId: string): Promise<number | undefined> {
    return heldGeneration(this.dataSource.manager, agentId);
  }

  claimGeneration(claim: GenerationClaim): Promise<ClaimOutcome> {
    return this.dataSource.transaction((manager) => claimAgentGenerations(manager, [claim]));
  }
}

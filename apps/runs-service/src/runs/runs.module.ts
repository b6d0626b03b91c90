import { Module } from '@nestjs/common';
import { AcceptanceModule } from '../acceptance/acceptance.module';
import { LifecycleModule } from '../lifecycle/lifecycle.module';
import { RunListModule } from '../run-list/run-list.module';
import { PostgresRunStore } from './postgres-run.store';
import { RunStore } from './run.store';
import { RunStarts } from './run-starts.service';
import { RunsHandlers } from './runs.handlers';
import { RunsService } from './runs.service';

/** The runs API: starting, listing, reading, cancelling and deleting runs. */
@Module({
  imports: [LifecycleModule, AcceptanceModule, RunListModule],
  controllers: [RunsHandlers],
  providers: [RunsService, RunStarts, { provide: RunStore, useClass: PostgresRunStore }],
  exports: [RunStarts],
})
export class RunsModule {}

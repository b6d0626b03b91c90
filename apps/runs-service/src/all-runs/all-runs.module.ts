import { Module } from '@nestjs/common';
import { RunListModule } from '../run-list/run-list.module';
import { AllRunsHandlers } from './all-runs.handlers';
import { AllRunsService } from './all-runs.service';

/** GET /v1/runs: runs across the caller's agents, with the per-agent list's filters. */
@Module({
  imports: [RunListModule],
  controllers: [AllRunsHandlers],
  providers: [AllRunsService],
})
export class AllRunsModule {}

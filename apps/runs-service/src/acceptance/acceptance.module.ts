import { Module } from '@nestjs/common';
import { ExecutionModule } from '../execution/execution.module';
import { runAcceptanceDatabaseModule } from './run-acceptance-database';
import { RunAcceptance } from './run-acceptance.service';
import { RunAcceptanceStore } from './run-acceptance.store';

@Module({
  imports: [runAcceptanceDatabaseModule(), ExecutionModule],
  providers: [RunAcceptance, RunAcceptanceStore],
  exports: [RunAcceptance],
})
export class AcceptanceModule {}

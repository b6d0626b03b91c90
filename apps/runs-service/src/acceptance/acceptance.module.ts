import { Module } from '@nestjs/common';
import { AdmissionModule } from '../admission/admission.module';
import { ExecutionModule } from '../execution/execution.module';
import { runAcceptanceDatabaseModule } from './run-acceptance-database';
import { RunAcceptance } from './run-acceptance.service';
import { RunAcceptanceStore } from './run-acceptance.store';

@Module({
  imports: [runAcceptanceDatabaseModule(), ExecutionModule, AdmissionModule],
  providers: [RunAcceptance, RunAcceptanceStore],
  exports: [RunAcceptance],
})
export class AcceptanceModule {}

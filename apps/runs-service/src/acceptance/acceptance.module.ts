import { Module } from '@nestjs/common';
import { AdmissionModule } from '../admission/admission.module';
import { runAcceptanceDatabaseModule } from '../database/run-acceptance-database';
import { ExecutionModule } from '../execution/execution.module';
import { PostgresRunAcceptanceStore } from './postgres-run-acceptance.store';
import { RunAcceptance } from './run-acceptance.service';
import { RunAcceptanceStore } from './run-acceptance.store';

@Module({
  imports: [runAcceptanceDatabaseModule(), ExecutionModule, AdmissionModule],
  providers: [RunAcceptance, { provide: RunAcceptanceStore, useClass: PostgresRunAcceptanceStore }],
  exports: [RunAcceptance],
})
export class AcceptanceModule {}

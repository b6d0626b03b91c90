import { Module } from '@nestjs/common';
import { runAcceptanceDatabaseModule } from './run-acceptance-database';
import { RunAcceptance } from './run-acceptance.service';
import { RunAcceptanceStore } from './run-acceptance.store';

@Module({
  imports: [runAcceptanceDatabaseModule()],
  providers: [RunAcceptance, RunAcceptanceStore],
  exports: [RunAcceptance],
})
export class AcceptanceModule {}

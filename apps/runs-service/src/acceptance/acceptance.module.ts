import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { RunsEnv } from '../config/runs.env';
import { runAcceptanceDatabaseModule } from '../database/run-acceptance-database';
import { BudgetsModule } from '../budgets/budgets.module';
import { LifecycleModule } from '../lifecycle/lifecycle.module';
import { PostgresRunAcceptanceStore } from './postgres-run-acceptance.store';
import { RunAcceptance } from './run-acceptance.service';
import { RunAcceptanceStore } from './run-acceptance.store';
import { RunStartLimits } from './run-start-limits';

@Module({
  imports: [runAcceptanceDatabaseModule(), LifecycleModule, BudgetsModule],
  providers: [
    RunAcceptance,
    { provide: RunAcceptanceStore, useClass: PostgresRunAcceptanceStore },
    {
      provide: RunStartLimits,
      inject: [ConfigService],
      useFactory: (config: ConfigService<RunsEnv, true>) =>
        new RunStartLimits(config.get('QUOTA_WAITING_RUNS_PER_USER', { infer: true }), config.get('TRIGGER_CHAIN_MAX_RUNS', { infer: true })),
    },
  ],
  exports: [RunAcceptance],
})
export class AcceptanceModule {}

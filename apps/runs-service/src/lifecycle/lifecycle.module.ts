import { Module } from '@nestjs/common';
import { AdmissionModule } from '../admission/admission.module';
import { BudgetsModule } from '../budgets/budgets.module';
import { CancelSignals } from './cancel-signals';
import { PostgresRunMetricsStore } from './postgres-run-metrics.store';
import { PostgresRunRecordStore } from './postgres-run-record.store';
import { RequestedRunEndEffects, RunEndEffectsApplier } from './run-end-effects';
import { RunEnds } from './run-ends';
import { RunEventChannel } from './run-event-channel';
import { RunMetrics } from './run-metrics';
import { RunMetricsStore } from './run-metrics.store';
import { RunRecordStore } from './run-record.store';
import { RunLifecycle } from './run-lifecycle.service';
import { RunRecorder } from './run-recorder';

/** A run's lifecycle (README.md): every change of a run's state, and what follows it once committed. */
@Module({
  imports: [AdmissionModule, BudgetsModule],
  providers: [
    { provide: RunRecordStore, useClass: PostgresRunRecordStore },
    { provide: RunMetricsStore, useClass: PostgresRunMetricsStore },
    { provide: RunEndEffectsApplier, useClass: RequestedRunEndEffects },
    RunEnds,
    CancelSignals,
    RunMetrics,
    RunRecorder,
    RunEventChannel,
    RunLifecycle,
  ],
  // Admission's too (Transactions with it): the units of work of acceptance, runs and maintenance.
  exports: [RunLifecycle, RunRecordStore, AdmissionModule],
})
export class LifecycleModule {}

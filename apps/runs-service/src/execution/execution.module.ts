import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { QueueNames } from '@aas/contracts';
import { AdmissionModule } from '../admission/admission.module';
import { RunsEnv } from '../config/runs.env';
import { ToolsModule } from '../tools/tools.module';
import { AGENT_RUNTIME, AgentRuntime } from './agent-runtime';
import { BuiltinRuntime } from './builtin-runtime';
import { CancelSignals } from './cancel-signals';
import { HttpRuntime } from './http-runtime';
import { PostgresRunMetricsStore } from './postgres-run-metrics.store';
import { PostgresRunRecordStore } from './postgres-run-record.store';
import { RunExecutionProcessor } from './run-execution.processor';
import { RunEventChannel } from './run-event-channel';
import { RunExecutor } from './run-executor';
import { RunMetrics } from './run-metrics';
import { RunMetricsStore } from './run-metrics.store';
import { RunRecordStore } from './run-record.store';
import { RunRecorder } from './run-recorder';
import { RequestedRunEndEffects, RunEndEffectsApplier } from './run-end-effects';
import { RunEnds } from './run-ends';

@Module({
  imports: [BullModule.registerQueue({ name: QueueNames.RunsExecution }), AdmissionModule, ToolsModule],
  providers: [
    {
      provide: AGENT_RUNTIME,
      inject: [ConfigService],
      useFactory: (config: ConfigService<RunsEnv, true>): AgentRuntime => {
        const url = config.get('AGENT_RUNTIME_URL', { infer: true });
        return url
          ? new HttpRuntime(url, config.get('AGENT_RUNTIME_SECRET', { infer: true }))
          : new BuiltinRuntime(config.get('BUILTIN_RUNTIME_STEP_MS', { infer: true }));
      },
    },
    { provide: RunRecordStore, useClass: PostgresRunRecordStore },
    { provide: RunMetricsStore, useClass: PostgresRunMetricsStore },
    { provide: RunEndEffectsApplier, useClass: RequestedRunEndEffects },
    RunEnds,
    CancelSignals,
    RunMetrics,
    RunRecorder,
    RunEventChannel,
    RunExecutor,
    RunExecutionProcessor,
  ],
  exports: [CancelSignals, RunRecorder, RunEventChannel],
})
export class ExecutionModule {}

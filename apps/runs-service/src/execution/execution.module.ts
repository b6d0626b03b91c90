import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { QueueNames } from '@aas/contracts';
import { RunsEnv } from '../config/runs.env';
import { InputRequestsModule } from '../input-requests/input-requests.module';
import { LifecycleModule } from '../lifecycle/lifecycle.module';
import { ToolsModule } from '../tools/tools.module';
import { AGENT_RUNTIME, AgentRuntime } from './agent-runtime';
import { BuiltinRuntime } from './builtin-runtime';
import { HttpRuntime } from './http-runtime';
import { RunExecutionProcessor } from './run-execution.processor';
import { RunExecutor } from './run-executor';

/** Executing admitted runs through the agent runtime; every state change goes through the lifecycle. */
@Module({
  imports: [BullModule.registerQueue({ name: QueueNames.RunsExecution }), LifecycleModule, ToolsModule, InputRequestsModule],
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
    RunExecutor,
    RunExecutionProcessor,
  ],
})
export class ExecutionModule {}

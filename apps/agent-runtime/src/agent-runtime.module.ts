import { DynamicModule, Module } from '@nestjs/common';
import { HEALTH_CHECKS, HealthController, MetricsModule, loggingModule, settingsModule, validateEnv } from '@aas/platform';
import { RuntimeEnv } from './config/runtime.env';
import { ActiveRuns } from './dispatch/active-runs';
import { DispatchController } from './dispatch/dispatch.controller';
import { DispatchSignatureGuard } from './dispatch/dispatch-signature.guard';
import { drainCheck } from './health/runtime-health';
import { RunExecutor } from './run/run-executor';
import { McpServers } from './tools/mcp-servers';
import { ToolCatalogueService } from './tools/tool-catalogue.service';

export const AGENT_RUNTIME_NAME = 'agent-runtime';

/** The agent runtime: settings, logs, the dispatch endpoint, the tool catalogue, health, metrics. No database, no Redis. */
@Module({})
export class AgentRuntimeModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: AgentRuntimeModule,
      imports: [settingsModule(RuntimeEnv, overrides), loggingModule(AGENT_RUNTIME_NAME), MetricsModule.forApp(AGENT_RUNTIME_NAME)],
      controllers: [DispatchController, HealthController],
      providers: [
        // Validated again here as a typed value the runtime's classes take (settingsModule validates for ConfigService).
        { provide: RuntimeEnv, useFactory: () => validateEnv(RuntimeEnv, { ...process.env, ...overrides }) },
        ActiveRuns,
        McpServers,
        ToolCatalogueService,
        RunExecutor,
        DispatchSignatureGuard,
        { provide: HEALTH_CHECKS, inject: [ActiveRuns], useFactory: (active: ActiveRuns) => [drainCheck(active)] },
      ],
    };
  }
}

import { DynamicModule, Module } from '@nestjs/common';
import { MetricsModule, RedisModule, ServiceClientModule, loggingModule, settingsModule } from '@aas/platform';
import { AgentsController } from './agents/agents.controller';
import { AgentBudgetController, UserBudgetController } from './budgets/budgets.controller';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { AuthModule } from './auth/auth.module';
import { CallerServices } from './caller/caller-services';
import { ConsoleAuthController } from './console-auth/console-auth.controller';
import { GatewayEnv } from './config/gateway.env';
import { GatewayHealthModule } from './health/gateway-health.module';
import { HttpMetrics } from './http/http-metrics';
import { MeController } from './identity/me.controller';
import { ToolsController } from './tools/tools.controller';
import { InputRequestsController } from './input-requests/input-requests.controller';
import { InstallationDeliveries } from './rate-limit/installation-deliveries';
import { RunEventStreamController } from './runs/run-event-stream.controller';
import { RunEventHub } from './runs/streams/run-event-hub';
import { RunEventStreams } from './runs/streams/run-event-streams';
import { StreamSlots } from './runs/streams/stream-slots';
import { AllRunsController } from './runs/all-runs.controller';
import { BulkActionsController } from './bulk-actions/bulk-actions.controller';
import { RunsController } from './runs/runs.controller';
import { AgentScheduleController, SchedulesController } from './schedules/schedules.controller';
import { InboundHooksController } from './triggers/inbound-hooks.controller';
import { VerifiedHookUrls } from './triggers/verified-hook-urls';
import { TriggersController } from './triggers/triggers.controller';
import { WebhooksController } from './webhooks/webhooks.controller';
import { InstructionsController } from './instructions/instructions.controller';
import { WorkspacesController } from './workspaces/workspaces.controller';

@Module({})
export class ApiGatewayModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: ApiGatewayModule,
      imports: [
        settingsModule(GatewayEnv, overrides),
        loggingModule('api-gateway'),
        RedisModule,
        ServiceClientModule,
        AuthModule,
        GatewayHealthModule,
        MetricsModule.forApp('api-gateway'),
      ],
      providers: [CallerServices, RunEventStreams, RunEventHub, StreamSlots, HttpMetrics, VerifiedHookUrls, InstallationDeliveries],
      controllers: [ConsoleAuthController, MeController, ApiKeysController, AgentsController, WorkspacesController, InstructionsController, AllRunsController, RunsController, RunEventStreamController, AgentScheduleController, SchedulesController, WebhooksController, TriggersController, InboundHooksController, ToolsController, InputRequestsController, UserBudgetController, AgentBudgetController, BulkActionsController],
    };
  }
}

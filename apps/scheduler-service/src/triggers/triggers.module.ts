import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InstallationChainKey, SecretBox } from '@aas/platform';
import { AgentsModule } from '../agents/agents.module';
import { AllowanceModule } from '../allowance/allowance.module';
import { SchedulerEnv } from '../config/scheduler.env';
import { EventTriggers } from './event-triggers';
import { InboundCallLimits } from './inbound-call-limits';
import { ExhaustedChains } from './exhausted-chains';
import { InboundChains } from './inbound-chain';
import { InboundHooksService } from './inbound-hooks.service';
import { PostgresTriggerStore } from './postgres-trigger.store';
import { TriggerMetrics } from './trigger-metrics';
import { TriggerStore } from './trigger.store';
import { TriggeredRunStarter } from './triggered-run-starter';
import { TriggersHandlers } from './triggers.handlers';
import { TriggersService } from './triggers.service';

@Module({
  imports: [AgentsModule, AllowanceModule],
  controllers: [TriggersHandlers],
  providers: [
    TriggersService,
    InboundHooksService,
    InboundCallLimits,
    InboundChains,
    ExhaustedChains,
    EventTriggers,
    { provide: TriggerStore, useClass: PostgresTriggerStore },
    TriggeredRunStarter,
    TriggerMetrics,
    {
      provide: SecretBox,
      inject: [ConfigService],
      useFactory: (config: ConfigService<SchedulerEnv, true>) => new SecretBox(config.get('WEBHOOK_SECRET_KEY', { infer: true })),
    },
    {
      provide: InstallationChainKey,
      inject: [ConfigService],
      useFactory: (config: ConfigService<SchedulerEnv, true>) => InstallationChainKey.derivedFrom(config.get('WEBHOOK_SECRET_KEY', { infer: true })),
    },
  ],
  exports: [EventTriggers, TriggerStore],
})
export class TriggersModule {}

import { DynamicModule, Module } from '@nestjs/common';
import { WebhooksPatterns } from '@aas/contracts';
import { RedisModule, ServiceHealthModule, loggingModule, serviceDatabaseModule, settingsModule } from '@aas/platform';
import { WebhooksEnv } from './config/webhooks.env';
import { WEBHOOKS_SCHEMA } from './database/webhooks-schema';

@Module({})
export class WebhooksServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: WebhooksServiceModule,
      imports: [
        settingsModule(WebhooksEnv, overrides),
        loggingModule('webhook-delivery'),
        serviceDatabaseModule(WEBHOOKS_SCHEMA),
        RedisModule,
        ServiceHealthModule.forService(WebhooksPatterns.Health),
      ],
    };
  }
}

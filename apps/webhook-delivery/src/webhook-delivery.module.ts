import { DynamicModule, Module } from '@nestjs/common';
import { serviceFoundation } from '@aas/platform';
import { WEBHOOKS_SERVICE } from './webhook-delivery.definition';

@Module({})
export class WebhooksServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return { module: WebhooksServiceModule, imports: serviceFoundation(WEBHOOKS_SERVICE, overrides) };
  }
}

import { DynamicModule, Module } from '@nestjs/common';
import { ServiceClientModule, queuesModule, serviceFoundation } from '@aas/platform';
import { DeliveryModule } from './delivery/delivery.module';
import { SubscriptionsModule } from './subscriptions/subscriptions.module';
import { WEBHOOKS_SERVICE } from './webhook-delivery.definition';

@Module({})
export class WebhooksServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: WebhooksServiceModule,
      imports: [...serviceFoundation(WEBHOOKS_SERVICE, overrides), queuesModule(), ServiceClientModule, DeliveryModule, SubscriptionsModule],
    };
  }
}

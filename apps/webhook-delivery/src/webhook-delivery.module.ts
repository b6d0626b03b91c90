import { DynamicModule, Module } from '@nestjs/common';
import { ServiceClientModule, queuesModule, serviceFoundation } from '@aas/platform';
import { DeliveryModule } from './delivery/delivery.module';
import { FanOutModule } from './fan-out/fan-out.module';
import { HistoryModule } from './history/history.module';
import { MaintenanceModule } from './maintenance/maintenance.module';
import { SubscriptionsModule } from './subscriptions/subscriptions.module';
import { WEBHOOKS_SERVICE } from './webhook-delivery.definition';

@Module({})
export class WebhooksServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: WebhooksServiceModule,
      imports: [
        ...serviceFoundation(WEBHOOKS_SERVICE, overrides),
        queuesModule(),
        ServiceClientModule,
        SubscriptionsModule,
        FanOutModule,
        DeliveryModule,
        HistoryModule,
        MaintenanceModule,
      ],
    };
  }
}

import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { OUTBOX_ROUTES, OutboxRelay, OutboxRoutes } from './outbox.relay';

/** The outbox relay of a service, with a queue for every destination its events are routed to. */
@Module({})
export class OutboxModule {
  static forRoutes(routes: OutboxRoutes): DynamicModule {
    const queues = [...new Set(Object.values(routes).flat())];
    return {
      module: OutboxModule,
      global: true,
      imports: [BullModule.registerQueue(...queues.map((name) => ({ name })))],
      providers: [{ provide: OUTBOX_ROUTES, useValue: routes }, OutboxRelay],
      exports: [OutboxRelay],
    };
  }
}

import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { OUTBOX_JOB_PRIORITIES, OUTBOX_ROUTES, OutboxJobPriorities, OutboxRelay, OutboxRoutes } from './outbox.relay';

/**
 * The outbox relay of a service, with a queue for every destination its events are routed to, and
 * optionally the priority of some events' jobs.
 */
@Module({})
export class OutboxModule {
  static forRoutes(routes: OutboxRoutes, priorities: OutboxJobPriorities = {}): DynamicModule {
    const queues = [...new Set(Object.values(routes).flat())];
    return {
      module: OutboxModule,
      global: true,
      imports: [BullModule.registerQueue(...queues.map((name) => ({ name })))],
      providers: [{ provide: OUTBOX_ROUTES, useValue: routes }, { provide: OUTBOX_JOB_PRIORITIES, useValue: priorities }, OutboxRelay],
      exports: [OutboxRelay],
    };
  }
}

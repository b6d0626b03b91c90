import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { CronModule } from '../cron/cron.module';
import { SchedulesModule } from '../schedules/schedules.module';
import { TriggersModule } from '../triggers/triggers.module';
import { FireBatcher } from './fire-batcher';
import { FireMetrics } from './fire-metrics';
import { RunEnds } from './run-ends';
import { RunEndsHandlers } from './run-ends.handlers';
import { RunOutcomeConsumer } from './run-outcome.consumer';
import { ScheduleFailures } from './schedule-failures';
import { ScheduleFireProcessor } from './schedule-fire.processor';
import { ScheduleTicker } from './schedule-ticker';
import { ScheduledRunStarter } from './scheduled-run-starter';

@Module({
  imports: [
    BullModule.registerQueue({ name: QueueNames.SchedulerFires }, { name: QueueNames.SchedulerEvents }),
    CronModule,
    SchedulesModule,
    TriggersModule,
  ],
  controllers: [RunEndsHandlers],
  providers: [
    RunEnds,
    ScheduleTicker,
    ScheduleFireProcessor,
    FireBatcher,
    ScheduledRunStarter,
    ScheduleFailures,
    RunOutcomeConsumer,
    FireMetrics,
  ],
})
export class FiringModule {}

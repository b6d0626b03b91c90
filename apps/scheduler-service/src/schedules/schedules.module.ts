import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { CronModule } from '../cron/cron.module';
import { ScheduleBackfill } from './schedule-backfill.service';
import { ScheduleStore } from './schedule.store';
import { SchedulesHandlers } from './schedules.handlers';
import { SchedulesService } from './schedules.service';

@Module({
  imports: [CronModule, AgentsModule],
  controllers: [SchedulesHandlers],
  providers: [SchedulesService, ScheduleBackfill, ScheduleStore],
  exports: [ScheduleStore],
})
export class SchedulesModule {}

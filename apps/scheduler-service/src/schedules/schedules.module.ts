import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { AllowanceModule } from '../allowance/allowance.module';
import { CronModule } from '../cron/cron.module';
import { PostgresScheduleStore } from './postgres-schedule.store';
import { ScheduleBackfill } from './schedule-backfill.service';
import { ScheduleStore } from './schedule.store';
import { SchedulesHandlers } from './schedules.handlers';
import { SchedulesService } from './schedules.service';

@Module({
  imports: [CronModule, AgentsModule, AllowanceModule],
  controllers: [SchedulesHandlers],
  providers: [SchedulesService, ScheduleBackfill, { provide: ScheduleStore, useClass: PostgresScheduleStore }],
  exports: [ScheduleStore],
})
export class SchedulesModule {}

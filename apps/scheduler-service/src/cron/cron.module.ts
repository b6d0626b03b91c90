import { Module } from '@nestjs/common';
import { CronScheduleCache } from './cron-schedule-cache';

/** One cache of parsed expressions per process, shared by the ticker, the fire worker and the schedule reads. */
@Module({
  providers: [{ provide: CronScheduleCache, useFactory: () => new CronScheduleCache() }],
  exports: [CronScheduleCache],
})
export class CronModule {}

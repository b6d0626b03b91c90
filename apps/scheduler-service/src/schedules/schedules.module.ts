import { Module } from '@nestjs/common';
import { SchedulesHandlers } from './schedules.handlers';
import { SchedulesService } from './schedules.service';

@Module({
  controllers: [SchedulesHandlers],
  providers: [SchedulesService],
})
export class SchedulesModule {}

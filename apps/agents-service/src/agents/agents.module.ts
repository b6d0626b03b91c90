import { Module } from '@nestjs/common';
import { AgentsHandlers } from './agents.handlers';
import { AgentsService } from './agents.service';

@Module({
  controllers: [AgentsHandlers],
  providers: [AgentsService],
  exports: [AgentsService],
})
export class AgentsModule {}

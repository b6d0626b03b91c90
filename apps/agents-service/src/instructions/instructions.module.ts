import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { StoresModule } from '../stores.module';
import { InstructionsHandlers } from './instructions.handlers';
import { InstructionsService } from './instructions.service';

@Module({
  imports: [StoresModule, AgentsModule],
  controllers: [InstructionsHandlers],
  providers: [InstructionsService],
  exports: [InstructionsService],
})
export class InstructionsModule {}

import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { InstructionsHandlers } from './instructions.handlers';
import { InstructionsService } from './instructions.service';

@Module({
  imports: [AgentsModule],
  controllers: [InstructionsHandlers],
  providers: [InstructionsService],
})
export class InstructionsModule {}

import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { DatabaseModule } from '../database/database.module';
import { UsersModule } from '../users/users.module';
import { InstructionStore } from './instruction.store';
import { InstructionsHandlers } from './instructions.handlers';
import { InstructionsService } from './instructions.service';
import { PostgresInstructionStore } from './postgres-instruction.store';

@Module({
  imports: [DatabaseModule, AgentsModule, UsersModule],
  controllers: [InstructionsHandlers],
  providers: [InstructionsService, { provide: InstructionStore, useClass: PostgresInstructionStore }],
  exports: [InstructionsService],
})
export class InstructionsModule {}

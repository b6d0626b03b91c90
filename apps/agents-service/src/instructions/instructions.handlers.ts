import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AgentRefMessage,
  AgentsPatterns,
  InstructionHistoryMessage,
  InstructionHistoryResponse,
  InstructionsResponse,
  PutInstructionsMessage,
  SuccessResponse,
} from '@aas/contracts';
import { InstructionsService } from './instructions.service';

@Controller()
export class InstructionsHandlers {
  constructor(private readonly instructions: InstructionsService) {}

  @MessagePattern(AgentsPatterns.GetInstructions)
  async get(@Payload() message: AgentRefMessage): Promise<InstructionsResponse> {
    return { instructions: await this.instructions.get(message.user_id, message.agent_id) };
  }

  @MessagePattern(AgentsPatterns.PutInstructions)
  async put(@Payload() message: PutInstructionsMessage): Promise<SuccessResponse> {
    await this.instructions.put(message.user_id, message.agent_id, {
      content: message.content,
      sourceType: message.source_type,
      sourceId: message.source_id,
      planSteps: message.plan_steps,
      agentGeneration: message.agent_generation,
    });
    return { success: true, error: null };
  }

  @MessagePattern(AgentsPatterns.ListInstructionVersions)
  async history(@Payload() message: InstructionHistoryMessage): Promise<InstructionHistoryResponse> {
    return { instruction_versions: await this.instructions.history(message.user_id, message.agent_id, message.limit) };
  }
}

import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AgentRefMessage,
  AgentsPatterns,
  HandlesRequest,
  InstructionHistoryMessage,
  InstructionHistoryResponse,
  InstructionsResponse,
  InstructionsVersionMessage,
  InstructionsVersionResponse,
  PutInstructionsMessage,
  SuccessResponse,
} from '@aas/contracts';
import { InstructionsService } from './instructions.service';

@Controller()
export class InstructionsHandlers {
  constructor(private readonly instructions: InstructionsService) {}

  @HandlesRequest(AgentsPatterns.GetInstructions)
  async get(@Payload() message: AgentRefMessage): Promise<InstructionsResponse> {
    return { instructions: await this.instructions.get(message.user_id, message.agent_id) };
  }

  @HandlesRequest(AgentsPatterns.PutInstructions)
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

  /** Service to service (runs-service): a replay's pinned version, when accepted and when it executes. */
  @HandlesRequest(AgentsPatterns.GetInstructionsVersion)
  async version(@Payload() message: InstructionsVersionMessage): Promise<InstructionsVersionResponse> {
    return { instructions: await this.instructions.keptVersion(message.user_id, message.agent_id, message.version_id) };
  }

  @HandlesRequest(AgentsPatterns.ListInstructionVersions)
  async history(@Payload() message: InstructionHistoryMessage): Promise<InstructionHistoryResponse> {
    return { instruction_versions: await this.instructions.history(message.user_id, message.agent_id, message.limit) };
  }
}

import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AgentListResponse,
  AgentRefMessage,
  AgentResponse,
  AgentsPatterns,
  CreateAgentMessage,
  HandlesRequest,
  ListAgentsMessage,
  MoveAgentMessage,
  SuccessResponse,
  UpdateAgentMessage,
} from '@aas/contracts';
import { AgentsService } from './agents.service';

@Controller()
export class AgentsHandlers {
  constructor(private readonly agents: AgentsService) {}

  @HandlesRequest(AgentsPatterns.ListAgents)
  list(@Payload() message: ListAgentsMessage): Promise<AgentListResponse> {
    return this.agents.list(message);
  }

  @HandlesRequest(AgentsPatterns.CreateAgent)
  async create(@Payload() message: CreateAgentMessage): Promise<AgentResponse> {
    return { agent: await this.agents.create(message) };
  }

  @HandlesRequest(AgentsPatterns.GetAgent)
  async get(@Payload() message: AgentRefMessage): Promise<AgentResponse> {
    return { agent: await this.agents.get(message.user_id, message.agent_id) };
  }

  @HandlesRequest(AgentsPatterns.DeleteAgent)
  async delete(@Payload() message: AgentRefMessage): Promise<{ deleted: true }> {
    await this.agents.delete(message.user_id, message.agent_id);
    return { deleted: true };
  }

  @HandlesRequest(AgentsPatterns.UpdateAgent)
  async update(@Payload() message: UpdateAgentMessage): Promise<AgentResponse> {
    return { agent: await this.agents.update(message) };
  }

  @HandlesRequest(AgentsPatterns.MoveAgent)
  move(@Payload() message: MoveAgentMessage): Promise<SuccessResponse> {
    return this.agents.move(message.user_id, message.agent_id, message.workspace_id);
  }
}

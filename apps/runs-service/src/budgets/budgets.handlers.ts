import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AgentBudgetMessage,
  BudgetResponse,
  HandlesRequest,
  PutAgentBudgetMessage,
  PutUserBudgetMessage,
  RunsPatterns,
  UserBudgetMessage,
} from '@aas/contracts';
import { Budgets } from './budgets.service';

/** The budget requests of the gateway (GET and PUT /v1/budgets, /v1/agents/{agent_id}/budget). */
@Controller()
export class BudgetsHandlers {
  constructor(private readonly budgets: Budgets) {}

  @HandlesRequest(RunsPatterns.GetUserBudget)
  async getUser(@Payload() message: UserBudgetMessage): Promise<BudgetResponse> {
    return { budget: await this.budgets.get(message.user_id) };
  }

  @HandlesRequest(RunsPatterns.PutUserBudget)
  async putUser(@Payload() message: PutUserBudgetMessage): Promise<BudgetResponse> {
    return { budget: await this.budgets.put(message.user_id, undefined, message) };
  }

  @HandlesRequest(RunsPatterns.GetAgentBudget)
  async getAgent(@Payload() message: AgentBudgetMessage): Promise<BudgetResponse> {
    return { budget: await this.budgets.get(message.user_id, message.agent_id) };
  }

  @HandlesRequest(RunsPatterns.PutAgentBudget)
  async putAgent(@Payload() message: PutAgentBudgetMessage): Promise<BudgetResponse> {
    return { budget: await this.budgets.put(message.user_id, message.agent_id, message) };
  }
}

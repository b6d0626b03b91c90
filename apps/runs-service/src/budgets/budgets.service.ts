import { Injectable } from '@nestjs/common';
import { AgentsPatterns, BudgetDto, PutBudgetRequest } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { ResourceNotFoundError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { creditsOf } from './budget-limits';
import { periodsAt } from './budget-periods';
import { BudgetKey, BudgetStore } from './budget.store';

/** Reading and setting the budgets of a user and of their agents (docs/budgets.md). */
@Injectable()
export class Budgets {
  constructor(
    private readonly store: BudgetStore,
    private readonly services: ServiceClient,
  ) {}

  async get(userId: string, agentId?: string): Promise<BudgetDto> {
    const key = await this.ownedKey(userId, agentId);
    return this.read(key);
  }

  /** Replaces both limits (an absent one is none) and answers the budget with its spend. */
  async put(userId: string, agentId: string | undefined, request: PutBudgetRequest): Promise<BudgetDto> {
    const key = await this.ownedKey(userId, agentId);
    await this.store.put(key, { daily: request.daily_credits ?? null, monthly: request.monthly_credits ?? null });
    return this.read(key);
  }

  private async read(key: BudgetKey): Promise<BudgetDto> {
    const periods = periodsAt(new Date());
    const [standing] = await this.store.standings(undefined, [key], periods, false);
    const budget: BudgetDto = {
      daily_credits: standing.limits.daily,
      monthly_credits: standing.limits.monthly,
      spent_today_credits: creditsOf(standing.dayMillionths),
      spent_this_month_credits: creditsOf(standing.monthMillionths),
      day_started_at: periods.dayStartedAt.toISOString(),
      month_started_at: periods.monthStartedAt.toISOString(),
    };
    return key.agentId === undefined ? budget : { agent_id: key.agentId, ...budget };
  }

  /** The user's key, or the agent's once agents-service says it is the user's (else 404, as for its runs). */
  private async ownedKey(userId: string, agentId: string | undefined): Promise<BudgetKey> {
    if (agentId === undefined) return { userId };
    if (!isUUID(agentId)) throw new ResourceNotFoundError('Agent', agentId);
    await this.services.request(AgentsPatterns.GetOwnedAgent, { user_id: userId, agent_id: agentId });
    return { userId, agentId };
  }
}

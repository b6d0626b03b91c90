import { Body, Controller, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { BudgetResponse, PutBudgetRequest, RunsPatterns } from '@aas/contracts';
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { ApiProblems } from '../openapi/api-problems.decorator';

const SPEND =
  'Spend is counted in credits from the usage lines of the runtime (CREDIT_PRICES) over the current UTC day and calendar month; ' +
  'a runtime that reports no usage spends nothing, so its runs are never bound (docs/budgets.md).';

/** The caller's spending budget, over all their agents (an Addition: docs/contract.md). */
@ApiTags('Budgets')
@Controller('v1/budgets')
export class UserBudgetController {
  constructor(private readonly services: CallerServices) {}

  @Get()
  @ApiOperation({ summary: "Your spending budget and what you spent today and this month", description: SPEND })
  @ApiOkResponse({ type: BudgetResponse })
  @ApiProblems(401)
  get(@Caller() caller: Caller): Promise<BudgetResponse> {
    return this.services.request(caller, RunsPatterns.GetUserBudget, {});
  }

  @Put()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Set your spending budget over all your agents: daily_credits and monthly_credits (null or absent: none)',
    description: `${SPEND} A run whose usage passes a budget ends in error (run.failed); starts of a spent budget are refused with 422 quota-exceeded.`,
  })
  @ApiOkResponse({ type: BudgetResponse })
  @ApiProblems(400, 401)
  put(@Caller() caller: Caller, @Body() body: PutBudgetRequest): Promise<BudgetResponse> {
    return this.services.request(caller, RunsPatterns.PutUserBudget, body);
  }
}

/** An agent's spending budget (an Addition: docs/contract.md). */
@ApiTags('Budgets')
@Controller('v1/agents/:agent_id/budget')
export class AgentBudgetController {
  constructor(private readonly services: CallerServices) {}

  @Get()
  @ApiOperation({ summary: "An agent's spending budget and what it spent today and this month", description: SPEND })
  @ApiParam({ name: 'agent_id', format: 'uuid' })
  @ApiOkResponse({ type: BudgetResponse })
  @ApiProblems(401, 404)
  get(@Caller() caller: Caller, @Param('agent_id') agentId: string): Promise<BudgetResponse> {
    return this.services.request(caller, RunsPatterns.GetAgentBudget, { agent_id: agentId });
  }

  @Put()
  @HttpCode(200)
  @ApiOperation({
    summary: "Set an agent's spending budget: daily_credits and monthly_credits (null or absent: none)",
    description: `${SPEND} A run whose usage passes a budget ends in error (run.failed); starts of a spent budget are refused with 422 quota-exceeded.`,
  })
  @ApiParam({ name: 'agent_id', format: 'uuid' })
  @ApiOkResponse({ type: BudgetResponse })
  @ApiProblems(400, 401, 404)
  put(@Caller() caller: Caller, @Param('agent_id') agentId: string, @Body() body: PutBudgetRequest): Promise<BudgetResponse> {
    return this.services.request(caller, RunsPatterns.PutAgentBudget, { ...body, agent_id: agentId });
  }
}

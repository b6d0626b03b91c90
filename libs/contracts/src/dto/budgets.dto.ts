import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** The largest budget, in credits: what a run's credits_consumed can reach (the contract's int32). */
export const BUDGET_MAX_CREDITS = 2_147_483_647;

/** PUT /v1/budgets and PUT /v1/agents/{agent_id}/budget: both limits, replaced together (docs/budgets.md). */
export class PutBudgetRequest {
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: BUDGET_MAX_CREDITS,
    description: 'Credits that may be spent per UTC day; null or absent: no daily budget',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(BUDGET_MAX_CREDITS)
  daily_credits?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: BUDGET_MAX_CREDITS,
    description: 'Credits that may be spent per UTC calendar month; null or absent: no monthly budget',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(BUDGET_MAX_CREDITS)
  monthly_credits?: number | null;
}

/** The budget of a user or an agent: its limits and what was spent in the current periods. */
export class BudgetDto {
  @ApiPropertyOptional({ format: 'uuid', description: "The agent's budget only: the agent" })
  agent_id?: string;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Credits per UTC day; null: none' })
  daily_credits!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Credits per UTC calendar month; null: none' })
  monthly_credits!: number | null;

  @ApiProperty({ description: 'Credits spent since day_started_at (millionths of a credit kept: 102.5 is 102.5 credits)', example: 12.5 })
  spent_today_credits!: number;

  @ApiProperty({ description: 'Credits spent since month_started_at', example: 40.25 })
  spent_this_month_credits!: number;

  @ApiProperty({ format: 'date-time', description: 'Start of the current UTC day (ISO 8601, UTC)' })
  day_started_at!: string;

  @ApiProperty({ format: 'date-time', description: 'Start of the current UTC calendar month (ISO 8601, UTC)' })
  month_started_at!: string;
}

export class BudgetResponse {
  @ApiProperty({ type: BudgetDto })
  budget!: BudgetDto;
}

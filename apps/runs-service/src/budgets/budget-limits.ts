import { QuotaExceededError } from '@aas/problem-details';

/** Whose budget: a user's (all their agents) or one agent's. */
export type BudgetOwner = 'agent' | 'user';

/** A budget's limits in credits; null: none. */
export interface BudgetLimits {
  daily: number | null;
  monthly: number | null;
}

/** A budget with what its owner spent in the current day and month, in millionths of a credit. */
export interface BudgetStanding {
  owner: BudgetOwner;
  limits: BudgetLimits;
  dayMillionths: bigint;
  monthMillionths: bigint;
}

/** One limit that binds: which, and how much was spent against it. */
export interface SpentBudget {
  owner: BudgetOwner;
  period: 'daily' | 'monthly';
  limit: number;
  spentMillionths: bigint;
}

/**
 * The first limit the spend has gone past (spent > limit), agent before user and day before month:
 * a usage line that makes this true ends its run.
 */
export function crossedBudget(standings: BudgetStanding[]): SpentBudget | null {
  return firstLimit(standings, (spent, limit) => spent > limit);
}

/** The first limit already used up (spent ≥ limit): a new run of its owner is refused. */
export function exhaustedBudget(standings: BudgetStanding[]): SpentBudget | null {
  return firstLimit(standings, (spent, limit) => spent >= limit);
}

function firstLimit(standings: BudgetStanding[], binds: (spent: bigint, limit: bigint) => boolean): SpentBudget | null {
  const ordered = [...standings].sort((a, b) => (a.owner === b.owner ? 0 : a.owner === 'agent' ? -1 : 1));
  for (const s of ordered) {
    for (const [period, limit, spent] of [['daily', s.limits.daily, s.dayMillionths], ['monthly', s.limits.monthly, s.monthMillionths]] as const) {
      if (limit !== null && binds(spent, BigInt(limit) * MILLION)) return { owner: s.owner, period, limit, spentMillionths: spent };
    }
  }
  return null;
}

/** The quota name a refusal carries: `agent_daily_credits`, `user_monthly_credits`… */
export function quotaOf(budget: SpentBudget): string {
  return `${budget.owner}_${budget.period}_credits`;
}

/** Why a run ended: "the agent's daily budget of 100 credits is spent (102.5)". */
export function crossingReason(budget: SpentBudget): string {
  return `the ${budget.owner}'s ${budget.period} budget of ${budget.limit} credits is spent (${creditsOf(budget.spentMillionths)}) (quota ${quotaOf(budget)})`;
}

/** The 422 of a start refused because a budget of its agent or user is spent. */
export function budgetRefusal(budget: SpentBudget): QuotaExceededError {
  const period = budget.period === 'daily' ? 'UTC day' : 'UTC month';
  return new QuotaExceededError(
    `The ${budget.owner}'s ${budget.period} budget of ${budget.limit} credits is spent (${creditsOf(budget.spentMillionths)} this ${period}; quota ${quotaOf(budget)}); ` +
      `runs start again in the next ${period} or once the budget is raised`,
    quotaOf(budget),
    budget.limit,
  );
}

/** Credits from millionths, as a JSON number (exact to the millionth well past any int32 budget). */
export function creditsOf(millionths: bigint): number {
  return Number(millionths) / 1_000_000;
}

const MILLION = 1_000_000n;

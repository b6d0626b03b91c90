import { BudgetStanding, budgetRefusal, crossedBudget, crossingReason, exhaustedBudget, quotaOf } from './budget-limits';

const M = 1_000_000n;
const standing = (fields: Partial<BudgetStanding> = {}): BudgetStanding => ({
  owner: 'agent',
  limits: { daily: null, monthly: null },
  dayMillionths: 0n,
  monthMillionths: 0n,
  ...fields,
});

describe(crossedBudget.name, () => {
  it('binds only once the spend is past the limit', () => {
    const at = (spent: bigint) => crossedBudget([standing({ limits: { daily: 100, monthly: null }, dayMillionths: spent, monthMillionths: spent })]);
    expect(at(100n * M)).toBeNull();
    expect(at(100n * M + 1n)).toEqual({ owner: 'agent', period: 'daily', limit: 100, spentMillionths: 100n * M + 1n });
  });

  it('names the agent before the user, and the day before the month', () => {
    const user = standing({ owner: 'user', limits: { daily: 1, monthly: 1 }, dayMillionths: 5n * M, monthMillionths: 5n * M });
    const agent = standing({ limits: { daily: null, monthly: 2 }, dayMillionths: 5n * M, monthMillionths: 5n * M });
    expect(crossedBudget([user, agent])).toMatchObject({ owner: 'agent', period: 'monthly', limit: 2 });
    expect(crossedBudget([user])).toMatchObject({ owner: 'user', period: 'daily', limit: 1 });
  });

  it('never binds without limits, whatever was spent', () => {
    expect(crossedBudget([standing({ dayMillionths: 10n ** 15n, monthMillionths: 10n ** 15n })])).toBeNull();
    expect(crossedBudget([])).toBeNull();
  });
});

describe(exhaustedBudget.name, () => {
  it('binds from the limit itself on, so a start is refused once the budget is used up', () => {
    const at = (spent: bigint) => exhaustedBudget([standing({ owner: 'user', limits: { daily: null, monthly: 3 }, monthMillionths: spent })]);
    expect(at(3n * M - 1n)).toBeNull();
    expect(at(3n * M)).toMatchObject({ owner: 'user', period: 'monthly', limit: 3 });
  });
});

describe('what a binding budget says', () => {
  const budget = { owner: 'agent' as const, period: 'daily' as const, limit: 100, spentMillionths: 102_500_000n };

  it('names the budget in the reason a run ends with', () => {
    expect(crossingReason(budget)).toBe("the agent's daily budget of 100 credits is spent (102.5) (quota agent_daily_credits)");
  });

  it('refuses a start with quota-exceeded naming the budget and its limit', () => {
    const refusal = budgetRefusal({ ...budget, owner: 'user', period: 'monthly' });
    expect({ quota: refusal.quota, limit: refusal.limit }).toEqual({ quota: 'user_monthly_credits', limit: 100 });
    expect(refusal.message).toMatch(/user's monthly budget of 100 credits is spent \(102\.5 this UTC month/);
    expect(quotaOf(budget)).toBe('agent_daily_credits');
  });
});

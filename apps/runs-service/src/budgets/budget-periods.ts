/** The UTC day and calendar month a moment falls in: the periods budgets count spend over. */
export interface BudgetPeriods {
  /** The day, `YYYY-MM-DD`. */
  day: string;
  /** The month's first day, `YYYY-MM-01`. */
  month: string;
  dayStartedAt: Date;
  monthStartedAt: Date;
}

export function periodsAt(now: Date): BudgetPeriods {
  const dayStartedAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const monthStartedAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return { day: dateOf(dayStartedAt), month: dateOf(monthStartedAt), dayStartedAt, monthStartedAt };
}

function dateOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

import { Injectable } from '@nestjs/common';
import { Transaction } from '@aas/platform';
import { QuotaExceededError } from '@aas/problem-details';
import { SpentBudget, crossedBudget, budgetRefusal, exhaustedBudget } from './budget-limits';
import { periodsAt } from './budget-periods';
import { BudgetKey, BudgetStore, OwnedStanding } from './budget.store';

/** A run as budgets see it: its user and agent. */
export interface BudgetedRun {
  userId: string;
  agentId: string;
}

/**
 * Where budgets bind (docs/budgets.md): a usage line's credits are added to its agent's spend of the day
 * in the unit of work that records the line, which answers the budget the line crossed, if any (the
 * lifecycle then ends the run); and new runs of an agent or user whose budget is spent are refused.
 */
@Injectable()
export class BudgetGuard {
  constructor(private readonly store: BudgetStore) {}

  /** In the unit of work recording a usage line of `run`: its cost counted, and the budget it crossed (null: none). */
  async charge(tx: Transaction, run: BudgetedRun, millionths: bigint, now = new Date()): Promise<SpentBudget | null> {
    if (millionths <= 0n) return null;
    const periods = periodsAt(now);
    await this.store.addSpend(tx, run.userId, run.agentId, millionths, periods);
    return crossedBudget(await this.store.standings(tx, keysOf([run]), periods, true));
  }

  /** In the unit of work accepting `runs` (one query for all): each run's refusal, or undefined when it may start. */
  async refusalsIn(tx: Transaction, runs: BudgetedRun[], now = new Date()): Promise<Array<QuotaExceededError | undefined>> {
    if (runs.length === 0) return [];
    const standings = await this.store.standings(tx, keysOf(runs), periodsAt(now), true);
    if (standings.length === 0) return runs.map(() => undefined);
    return runs.map((run) => {
      const spent = exhaustedBudget(standings.filter((s) => appliesTo(s, run)));
      return spent ? budgetRefusal(spent) : undefined;
    });
  }
}

/** Each user's key and each (user, agent) key once. */
function keysOf(runs: BudgetedRun[]): BudgetKey[] {
  const keys = new Map<string, BudgetKey>();
  for (const run of runs) {
    keys.set(run.userId, { userId: run.userId });
    keys.set(`${run.userId}/${run.agentId}`, { userId: run.userId, agentId: run.agentId });
  }
  return [...keys.values()];
}

function appliesTo(standing: OwnedStanding, run: BudgetedRun): boolean {
  return standing.key.userId === run.userId && (standing.key.agentId === undefined || standing.key.agentId === run.agentId);
}

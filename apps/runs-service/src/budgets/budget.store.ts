import { Transaction } from '@aas/platform';
import { BudgetLimits, BudgetOwner, BudgetStanding } from './budget-limits';
import { BudgetPeriods } from './budget-periods';

/** A budget's owner: a user, or (with `agentId`) one agent of theirs. */
export interface BudgetKey {
  userId: string;
  agentId?: string;
}

/** A standing with the owner it belongs to. */
export interface OwnedStanding extends BudgetStanding {
  key: BudgetKey;
}

/**
 * The statements of budgets and spend (postgres-budget.store.ts); an abstract class, so that it is the
 * injection token.
 */
export abstract class BudgetStore {
  /** In `tx`: adds `millionths` to the agent's spend of the day (one UPSERT: the row stays locked to the commit). */
  abstract addSpend(tx: Transaction, userId: string, agentId: string, millionths: bigint, periods: BudgetPeriods): Promise<void>;

  /**
   * In `tx` (or outside one): the standing of each key's budget in one query; `budgetedOnly` leaves out the
   * keys without a budget (their spend is not summed).
   */
  abstract standings(tx: Transaction | undefined, keys: BudgetKey[], periods: BudgetPeriods, budgetedOnly: boolean): Promise<OwnedStanding[]>;

  /** Sets the key's limits; both null removes its budget. */
  abstract put(key: BudgetKey, limits: BudgetLimits): Promise<void>;
}

/** The owner a key names. */
export function ownerOf(key: BudgetKey): BudgetOwner {
  return key.agentId === undefined ? 'user' : 'agent';
}

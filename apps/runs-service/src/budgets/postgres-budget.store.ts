import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Transaction, managerOf } from '@aas/platform';
import { DataSource } from 'typeorm';
import { BudgetLimits } from './budget-limits';
import { BudgetPeriods } from './budget-periods';
import { BudgetKey, BudgetStore, OwnedStanding, ownerOf } from './budget.store';

interface StandingRow {
  user_id: string;
  agent_id: string | null;
  daily_credits: string | null;
  monthly_credits: string | null;
  day_spent: string;
  month_spent: string;
}

/** Budgets and spend on the budgets and budget_spend tables. */
@Injectable()
export class PostgresBudgetStore extends BudgetStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async addSpend(tx: Transaction, userId: string, agentId: string, millionths: bigint, periods: BudgetPeriods): Promise<void> {
    await managerOf(this.dataSource, tx).query(
      `INSERT INTO budget_spend (user_id, day, agent_id, credit_millionths) VALUES ($1, $2::date, $3, $4)
       ON CONFLICT (user_id, day, agent_id) DO UPDATE SET credit_millionths = budget_spend.credit_millionths + EXCLUDED.credit_millionths`,
      [userId, periods.day, agentId, millionths.toString()],
    );
  }

  async standings(tx: Transaction | undefined, keys: BudgetKey[], periods: BudgetPeriods, budgetedOnly: boolean): Promise<OwnedStanding[]> {
    if (keys.length === 0) return [];
    // A key's spend sums its days of the month: the user's across their agents, an agent's its own. With
    // `budgetedOnly` the keys are joined to their budgets first, so a key without one sums nothing.
    const owners = budgetedOnly
      ? 'SELECT b.user_id, b.agent_id, b.daily_credits, b.monthly_credits FROM keys k JOIN budgets b'
      : 'SELECT k.user_id, k.agent_id, b.daily_credits, b.monthly_credits FROM keys k LEFT JOIN budgets b';
    const rows: StandingRow[] = await managerOf(this.dataSource, tx).query(
      `WITH keys AS (SELECT * FROM unnest($1::uuid[], $2::uuid[]) AS k(user_id, agent_id)),
            owners AS (${owners} ON b.user_id = k.user_id AND b.agent_id IS NOT DISTINCT FROM k.agent_id)
       SELECT o.user_id, o.agent_id, o.daily_credits, o.monthly_credits, s.day_spent, s.month_spent
         FROM owners o
         CROSS JOIN LATERAL (
           SELECT COALESCE(SUM(credit_millionths) FILTER (WHERE day = $3::date), 0) AS day_spent,
                  COALESCE(SUM(credit_millionths), 0) AS month_spent
             FROM budget_spend
            WHERE user_id = o.user_id AND day >= $4::date AND day <= $3::date
              AND (o.agent_id IS NULL OR agent_id = o.agent_id)) s`,
      [keys.map((k) => k.userId), keys.map((k) => k.agentId ?? null), periods.day, periods.month],
    );
    return rows.map((row) => {
      const key: BudgetKey = row.agent_id === null ? { userId: row.user_id } : { userId: row.user_id, agentId: row.agent_id };
      return {
        key,
        owner: ownerOf(key),
        limits: { daily: numberOrNull(row.daily_credits), monthly: numberOrNull(row.monthly_credits) },
        dayMillionths: BigInt(row.day_spent),
        monthMillionths: BigInt(row.month_spent),
      };
    });
  }

  async put(key: BudgetKey, limits: BudgetLimits): Promise<void> {
    const agentId = key.agentId ?? null;
    if (limits.daily === null && limits.monthly === null) {
      await this.dataSource.query('DELETE FROM budgets WHERE user_id = $1 AND agent_id IS NOT DISTINCT FROM $2::uuid', [key.userId, agentId]);
      return;
    }
    const target = agentId === null ? '(user_id) WHERE agent_id IS NULL' : '(user_id, agent_id) WHERE agent_id IS NOT NULL';
    await this.dataSource.query(
      `INSERT INTO budgets (user_id, agent_id, daily_credits, monthly_credits) VALUES ($1, $2, $3, $4)
       ON CONFLICT ${target} DO UPDATE SET daily_credits = EXCLUDED.daily_credits, monthly_credits = EXCLUDED.monthly_credits, updated_at = now()`,
      [key.userId, agentId, limits.daily, limits.monthly],
    );
  }
}

function numberOrNull(value: string | null): number | null {
  return value === null ? null : Number(value);
}

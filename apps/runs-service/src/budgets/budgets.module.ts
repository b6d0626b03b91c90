import { Module } from '@nestjs/common';
import { BudgetGuard } from './budget-guard';
import { BudgetStore } from './budget.store';
import { BudgetsHandlers } from './budgets.handlers';
import { Budgets } from './budgets.service';
import { PostgresBudgetStore } from './postgres-budget.store';

/** Spending budgets (docs/budgets.md): their API, and the guard the lifecycle and the acceptance of runs consult. */
@Module({
  controllers: [BudgetsHandlers],
  providers: [Budgets, BudgetGuard, { provide: BudgetStore, useClass: PostgresBudgetStore }],
  exports: [BudgetGuard],
})
export class BudgetsModule {}

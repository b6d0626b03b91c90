import { transactionOn } from '@aas/platform';
import { randomUUID } from 'node:crypto';
import { isolatedInfra } from '../../../../test/support/isolated-infra';
import { RunsTestDatabase, openRunsTestDatabase } from '../database/runs-test-database';
import { periodsAt } from './budget-periods';
import { BudgetKey } from './budget.store';
import { PostgresBudgetStore } from './postgres-budget.store';

const infra = isolatedInfra();
const M = 1_000_000n;

/** Budgets and spend against the real schema: which days count, whose spend is summed, what budgetedOnly leaves out. */
describe(PostgresBudgetStore.name, () => {
  let database: RunsTestDatabase;
  let store: PostgresBudgetStore;
  const [user, other, agent, sibling] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const now = periodsAt(new Date('2026-03-15T12:00:00Z'));
  const add = (userId: string, agentId: string, credits: bigint, at: string) =>
    transactionOn(database.dataSource, (_m, tx) => store.addSpend(tx, userId, agentId, credits * M, periodsAt(new Date(at))));
  const standing = async (key: BudgetKey, budgetedOnly = false) => (await store.standings(undefined, [key], now, budgetedOnly))[0];

  beforeAll(async () => {
    database = await openRunsTestDatabase(infra.databaseUrl);
    store = new PostgresBudgetStore(database.dataSource);
    await add(user, agent, 1000n, '2026-02-28T23:59:59Z'); // last month: never counted
    await add(user, agent, 10n, '2026-03-01T00:00:00Z');
    await add(user, agent, 3n, '2026-03-15T01:00:00Z');
    await add(user, agent, 4n, '2026-03-15T23:00:00Z'); // the same row of the day, added to
    await add(user, sibling, 20n, '2026-03-15T08:00:00Z');
    await add(other, randomUUID(), 500n, '2026-03-15T08:00:00Z');
    await add(user, agent, 99n, '2026-03-16T00:00:00Z'); // after `now`: not in its day or month
  });
  afterAll(() => database?.close());

  it("sums an agent's own days of the month, and the user's across their agents", async () => {
    expect(await standing({ userId: user, agentId: agent })).toMatchObject({ owner: 'agent', dayMillionths: 7n * M, monthMillionths: 17n * M });
    expect(await standing({ userId: user })).toMatchObject({ owner: 'user', limits: { daily: null, monthly: null }, dayMillionths: 27n * M, monthMillionths: 37n * M });
    expect(await standing({ userId: randomUUID() })).toMatchObject({ dayMillionths: 0n, monthMillionths: 0n });
  });

  it('answers only the keys with a budget when asked, and sets, replaces and removes budgets', async () => {
    const keys = [{ userId: user }, { userId: user, agentId: agent }, { userId: user, agentId: sibling }];
    expect(await store.standings(undefined, keys, now, true)).toEqual([]);
    await store.put({ userId: user, agentId: agent }, { daily: 5, monthly: null });
    await store.put({ userId: user }, { daily: null, monthly: 30 });
    await store.put({ userId: user }, { daily: 40, monthly: 30 });
    const budgeted = await store.standings(undefined, keys, now, true);
    expect(budgeted.map((s) => [s.owner, s.key.agentId ?? null, s.limits])).toEqual(
      expect.arrayContaining([
        ['user', null, { daily: 40, monthly: 30 }],
        ['agent', agent, { daily: 5, monthly: null }],
      ]),
    );
    expect(budgeted).toHaveLength(2);
    await store.put({ userId: user, agentId: agent }, { daily: null, monthly: null });
    expect((await store.standings(undefined, keys, now, true)).map((s) => s.owner)).toEqual(['user']);
    expect(await standing({ userId: other })).toMatchObject({ limits: { daily: null, monthly: null }, dayMillionths: 500n * M });
  });
});

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool } from 'pg';
import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { observerPool } from './support/isolated-infra';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

/** The slowest expressions to evaluate that a tenant could store: every candidate falls in a DST gap. */
const SLOW = [
  { cron: '0 30 2 ? 3 1#2 2030-9999', timezone: 'America/New_York' },
  { cron: '0 30 2 ? 3 1#2 2030-2126', timezone: 'America/New_York' },
  { cron: '* * 2 ? 3 1#2 *', timezone: 'America/New_York' },
  { cron: '0 0/5 2 ? 3 1#2 *', timezone: 'America/Chicago' },
];

/** docs/schedules.md: no tick, read or list holds the event loop for more than this, whatever is stored. */
const EVENT_LOOP_BOUND_MS = 100;

describe('Schedules whose expressions are slow to evaluate', () => {
  let system: TestSystem;
  let base: string;
  let scheduler: Pool;
  let alice: User;

  beforeAll(async () => {
    system = await TestSystem.start({ runsEnv: { BUILTIN_RUNTIME_STEP_MS: '10' } });
    base = system.url();
    scheduler = observerPool(system.infra.databaseUrl, 'scheduler');
    alice = await freshUser(system, 'alice');
  });
  afterAll(async () => {
    await scheduler.end();
    await system.stop();
  });

  /** The longest the event loop of this process (which runs every app) was held while `work` ran. */
  async function longestBlock(work: () => Promise<void>): Promise<number> {
    const histogram = monitorEventLoopDelay({ resolution: 5 });
    histogram.enable();
    try {
      await work();
    } finally {
      histogram.disable();
    }
    return histogram.max / 1e6;
  }

  it('refuses each at PUT with a 400 that says why, quickly', async () => {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: alice.key, body: {} })).body.agent.agent_id;
    await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: alice.key, body: { run_mode: 'build' } });
    await eventually(
      'agent deployed',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: alice.key })).body.agent.deployment_state,
      (state) => state === 'deployed',
    );
    const block = await longestBlock(async () => {
      for (const body of SLOW) {
        const res = await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: alice.key, body });
        expectProblem(res, 400);
        expect(res.body.detail).toMatch(/never fires again/);
      }
    });
    expect(block).toBeLessThan(EVENT_LOOP_BOUND_MS);
  });

  it('300 of them stored (by an older version, which accepted them) and due at once: every tick and the list stay within the bound', async () => {
    // Real agents: the list shows only schedules of agents that exist (a deleted agent's is gone at once).
    const agentIds: string[] = [];
    for (let i = 0; i < 300; i += 50) {
      const created = await Promise.all(Array.from({ length: 50 }, () => http(base, 'POST', '/v1/agents', { key: alice.key, body: {} })));
      agentIds.push(...created.map((res) => res.body.agent.agent_id as string));
    }
    const stored = agentIds.map((agentId, i) => ({ agentId, ...SLOW[i % SLOW.length] }));
    await scheduler.query(
      `INSERT INTO schedules (agent_id, user_id, cron, timezone, next_run_at)
       SELECT a, $2, c, t, now() - interval '1 second' FROM unnest($1::uuid[], $3::text[], $4::text[]) AS v(a, c, t)`,
      [stored.map((s) => s.agentId), alice.userId, stored.map((s) => s.cron), stored.map((s) => s.timezone)],
    );
    const block = await longestBlock(async () => {
      await eventually(
        'every slow schedule taken and finished',
        async () => (await scheduler.query(`SELECT count(*)::int AS n FROM schedules WHERE next_run_at IS NOT NULL AND user_id = $1`, [alice.userId])).rows[0].n,
        (n) => n === 0,
        30_000,
      );
      const list = await http(base, 'GET', '/v1/schedules', { key: alice.key });
      expect(list.status).toBe(200);
      expect(list.body.schedules).toHaveLength(300);
      for (const schedule of list.body.schedules) {
        expect(schedule).toMatchObject({ finished: true, next_run: 0, upcoming: [] });
        // Each is evaluated to its end (no further fire), never given up on.
        expect(schedule.last_error ?? '').not.toMatch(/can no longer be evaluated/);
      }
    });
    expect(block).toBeLessThan(EVENT_LOOP_BOUND_MS);
  });
});

/** @run-alone it bounds event-loop stalls: a test file running beside it would stall the loop too. */
import { Pool } from 'pg';
import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { observerPool } from './support/isolated-infra';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

/**
 * The slowest expressions to evaluate that a tenant could store (every candidate falls in a DST gap), and
 * one-shots whose only fire is past: none has a next fire time.
 */
const SLOW = [
  { cron: '0 30 2 ? 3 1#2 2030-9999', timezone: 'America/New_York' },
  { cron: '0 30 2 ? 3 1#2 2030-2126', timezone: 'America/New_York' },
  { cron: '* * 2 ? 3 1#2 *', timezone: 'America/New_York' },
  { cron: '0 0/5 2 ? 3 1#2 *', timezone: 'America/Chicago' },
  { cron: '1 0 10 1 5 ? 2026', timezone: null },
  { cron: '0 0 0 1 1 ? 2020', timezone: 'Europe/Berlin' },
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

  /**
   * The longest the event loop of this process (which runs every app) was held by work of its own while
   * `work` ran: for each 5 ms tick, the lesser of the wall time since the last tick and the CPU time the
   * process used in it. A wait for a core on a loaded machine is wall time without CPU, not a block of ours.
   */
  async function longestBlock(work: () => Promise<void>): Promise<number> {
    let wall = performance.now();
    let cpu = process.cpuUsage();
    let longest = 0;
    const ticker = setInterval(() => {
      const used = process.cpuUsage(cpu);
      const now = performance.now();
      longest = Math.max(longest, Math.min(now - wall, (used.user + used.system) / 1000));
      wall = now;
      cpu = process.cpuUsage();
    }, 5);
    try {
      await work();
    } finally {
      clearInterval(ticker);
    }
    return longest;
  }

  it('refuses each at PUT and in the preview with a 400 that says why, quickly', async () => {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: alice.key, body: {} })).body.agent.agent_id;
    await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: alice.key, body: { run_mode: 'build' } });
    await eventually(
      'agent deployed',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: alice.key })).body.agent.deployment_state,
      (state) => state === 'deployed',
    );
    const block = await longestBlock(async () => {
      for (const { cron, timezone } of SLOW) {
        const body = timezone === null ? { cron } : { cron, timezone };
        for (const [method, path] of [['PUT', `/v1/agents/${agentId}/schedule`], ['POST', '/v1/schedules/preview']] as const) {
          const res = await http(base, method, path, { key: alice.key, body });
          expectProblem(res, 400);
          expect(res.body.detail).toMatch(/never fires again/);
        }
      }
    });
    expect(block).toBeLessThan(EVENT_LOOP_BOUND_MS);
  });

  it('300 of them stored (by an older version, which accepted them) and due at once: every tick and every answer stay within the bound', async () => {
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
      // One schedule of each expression: read, paused, resumed (it stays finished) and deleted.
      for (const { agentId, cron } of stored.slice(0, SLOW.length)) {
        const path = `/v1/agents/${agentId}/schedule`;
        const read = await http(base, 'GET', path, { key: alice.key });
        expect({ cron, status: read.status, schedule: read.body.schedule }).toMatchObject({ cron, status: 200, schedule: { cron, finished: true } });
        for (const action of ['pause', 'resume']) expect({ cron, action, status: (await http(base, 'POST', `${path}/${action}`, { key: alice.key })).status }).toEqual({ cron, action, status: 200 });
        expect((await http(base, 'GET', path, { key: alice.key })).body.schedule).toMatchObject({ finished: true, paused: false, next_run: 0 });
        expect({ cron, status: (await http(base, 'DELETE', path, { key: alice.key })).status }).toEqual({ cron, status: 200 });
      }
    });
    expect(block).toBeLessThan(EVENT_LOOP_BOUND_MS);
  });
});

import { Pool } from 'pg';
import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { observerPool } from './support/isolated-infra';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

/**
 * Schedules that cannot fire again, cannot be evaluated, or were missed: each is
 * decided on its own, and never holds up the others of its tick.
 */
describe('Schedule isolation, misfire policies and backfill', () => {
  let system: TestSystem;
  let base: string;
  let scheduler: Pool;
  let runs: Pool;
  let alice: User;

  beforeAll(async () => {
    system = await TestSystem.start({ runsEnv: { BUILTIN_RUNTIME_STEP_MS: '10' } });
    base = system.url();
    scheduler = observerPool(system.infra.databaseUrl, 'scheduler');
    runs = observerPool(system.infra.databaseUrl, 'runs');
    alice = await freshUser(system, 'alice');
  });
  afterAll(async () => {
    await scheduler.end();
    await runs.end();
    await system.stop();
  });

  async function deployedAgent(user: User): Promise<string> {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: user.key, body: {} })).body.agent.agent_id;
    await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { run_mode: 'build' } });
    await eventually(
      'agent deployed',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: user.key })).body.agent.deployment_state,
      (state) => state === 'deployed',
    );
    return agentId;
  }

  const schedule = async (agentId: string, user = alice) =>
    (await http(base, 'GET', `/v1/agents/${agentId}/schedule`, { key: user.key })).body.schedule;

  /** The fire times (epoch ms) the agent's scheduled runs were made for, from their idempotency keys. */
  async function firedTimes(agentId: string): Promise<number[]> {
    const { rows } = await runs.query(`SELECT key FROM run_idempotency_keys WHERE key LIKE $1`, [`schedule:${agentId}:%`]);
    return rows.map((r: { key: string }) => Number(r.key.split(':')[2])).sort((a, b) => a - b);
  }

  /** Makes the schedule due at `dueAt` as if the scheduler had been down since then. */
  async function missedSince(agentId: string, dueAt: Date, cron?: string): Promise<void> {
    await scheduler.query(`UPDATE schedules SET next_run_at = $2, cron = COALESCE($3, cron) WHERE agent_id = $1`, [agentId, dueAt, cron ?? null]);
  }

  it('a schedule with no further fire, taken late on a cold cache, finishes alone: the healthy schedule of the same tick keeps firing', async () => {
    const [poisoned, healthy] = [await deployedAgent(alice), await deployedAgent(alice)];
    await http(base, 'PUT', `/v1/agents/${poisoned}/schedule`, { key: alice.key, body: { cron: '0 0 0 1 1 ? 2099' } });
    // A one-shot whose only fire is long past, stored as a tick of an older version would have left it; this process has
    // never parsed the expression (a cold cache), and it sorts first in the batch.
    await missedSince(poisoned, new Date('2026-05-01T10:00:01Z'), '1 0 10 1 5 ? 2026');
    await http(base, 'PUT', `/v1/agents/${healthy}/schedule`, { key: alice.key, body: { cron: '* * * * * ? *', overlap: 'allow' } });

    const fired = await eventually('healthy schedule fires', () => firedTimes(healthy), (t) => t.length >= 3, 15_000);
    expect(fired.length).toBeGreaterThanOrEqual(3);

    const { rows } = await scheduler.query(`SELECT next_run_at, last_error FROM schedules WHERE agent_id = $1`, [poisoned]);
    expect(rows[0]).toEqual({ next_run_at: null, last_error: null }); // finished, never selected again
    expect(await firedTimes(poisoned)).toEqual([Date.parse('2026-05-01T10:00:01Z')]); // fire_once: its missed fire, once

    const read = await schedule(poisoned);
    expect(read).toMatchObject({ cron: '1 0 10 1 5 ? 2026', finished: true, next_run: 0, upcoming: [], paused: false });
    const listed = (await http(base, 'GET', '/v1/schedules', { key: alice.key })).body.schedules;
    expect(listed.find((s: { agent_id: string }) => s.agent_id === poisoned)).toMatchObject({ finished: true, next_run: 0 });
    for (const action of ['pause', 'resume']) {
      expect((await http(base, 'POST', `/v1/agents/${poisoned}/schedule/${action}`, { key: alice.key })).status).toBe(200);
    }
    expect(await schedule(poisoned)).toMatchObject({ finished: true, paused: false });
    expect((await http(base, 'DELETE', `/v1/agents/${poisoned}/schedule`, { key: alice.key })).status).toBe(200);
    await http(base, 'DELETE', `/v1/agents/${healthy}/schedule`, { key: alice.key });
  });

  it('a stored expression the parser refuses is finished with last_error; reads answer 200 and the others keep firing', async () => {
    const [broken, healthy] = [await deployedAgent(alice), await deployedAgent(alice)];
    await http(base, 'PUT', `/v1/agents/${broken}/schedule`, { key: alice.key, body: { cron: '0 0 0 1 1 ? 2099' } });
    await missedSince(broken, new Date(Date.now() - 5000), '0 0 0 1 1 ? 2099 extra-field');
    await http(base, 'PUT', `/v1/agents/${healthy}/schedule`, { key: alice.key, body: { cron: '* * * * * ? *', overlap: 'allow' } });

    await eventually('healthy schedule fires', () => firedTimes(healthy), (t) => t.length >= 2, 15_000);
    const read = await eventually('broken schedule finished', () => schedule(broken), (s) => s.last_error_at !== null);
    expect(read).toMatchObject({ finished: true, next_run: 0, upcoming: [], last_error: expect.stringMatching(/can no longer be evaluated.*7 fields/) });
    expect(Date.parse(read.last_error_at)).toBeGreaterThan(Date.now() - 60_000);
    const listed = await http(base, 'GET', '/v1/schedules', { key: alice.key });
    expect(listed.status).toBe(200);
    for (const action of ['pause', 'resume']) {
      expect((await http(base, 'POST', `/v1/agents/${broken}/schedule/${action}`, { key: alice.key })).status).toBe(200);
    }
    const backfill = await http(base, 'POST', `/v1/agents/${broken}/schedule/backfill`, {
      key: alice.key,
      body: { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' },
    });
    expectProblem(backfill, 400);
    expect(backfill.body.detail).toMatch(/can no longer be evaluated/);
    expect((await http(base, 'DELETE', `/v1/agents/${broken}/schedule`, { key: alice.key })).status).toBe(200);
    await http(base, 'DELETE', `/v1/agents/${healthy}/schedule`, { key: alice.key });
  });

  describe('misfire policies, after a fire was missed by 10 minutes', () => {
    const MINUTE = 60_000;
    const minuteMark = (ms: number) => Math.floor(ms / MINUTE) * MINUTE;

    /** Clear of a minute mark, so that no regular fire (taken up to a second early) lands among the missed ones. */
    async function awayFromMinuteMark(): Promise<void> {
      const second = (Date.now() % MINUTE) / 1000;
      if (second < 3 || second > 50) await new Promise((resolve) => setTimeout(resolve, ((63 - second) % 60) * 1000));
    }

    async function missedTenMinutes(body: object): Promise<{ agentId: string; missedAt: number; takenBy: number }> {
      const agentId = await deployedAgent(alice);
      await awayFromMinuteMark();
      // Fires at second 0 of every minute; the next one after now is left alone by comparing fire times below `takenBy`.
      expect((await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: alice.key, body: { cron: '0 * * * * ? *', overlap: 'allow', ...body } })).status).toBe(200);
      const missedAt = minuteMark(Date.now()) - 10 * MINUTE;
      await missedSince(agentId, new Date(missedAt));
      const takenBy = Date.now();
      await eventually(
        'the missed schedule taken',
        async () => (await scheduler.query(`SELECT next_run_at FROM schedules WHERE agent_id = $1`, [agentId])).rows[0].next_run_at,
        (next: Date) => next.getTime() > takenBy,
      );
      return { agentId, missedAt, takenBy };
    }

    const missedFires = async (agentId: string, takenBy: number) => (await firedTimes(agentId)).filter((t) => t <= takenBy);

    it('skip fires nothing for the missed times', async () => {
      const { agentId, takenBy } = await missedTenMinutes({ misfire: 'skip' });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await missedFires(agentId, takenBy)).toEqual([]);
      expect(await schedule(agentId)).toMatchObject({ misfire: 'skip', catch_up_window: null, finished: false });
    });

    it('fire_once (the default) fires the first missed time once', async () => {
      const { agentId, missedAt, takenBy } = await missedTenMinutes({});
      await eventually('the missed fire', () => missedFires(agentId, takenBy), (t) => t.length > 0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await missedFires(agentId, takenBy)).toEqual([missedAt]);
      expect(await schedule(agentId)).toMatchObject({ misfire: 'fire_once', catch_up_window: null });
    });

    it('catch_up fires every missed time within its window, once each', async () => {
      const { agentId, takenBy } = await missedTenMinutes({ misfire: 'catch_up', catch_up_window: 300 });
      const windowMarks: number[] = [];
      for (let t = minuteMark(takenBy); t > takenBy - 300_000 - 2000; t -= MINUTE) windowMarks.unshift(t);
      const fired = await eventually('the missed fires', () => missedFires(agentId, takenBy), (t) => t.length >= 5);
      // The window is measured from the tick that took the schedule, a moment after `takenBy` was read.
      expect(fired.length).toBeGreaterThanOrEqual(5);
      expect(fired.length).toBeLessThanOrEqual(6);
      for (const time of fired) expect(windowMarks).toContain(time);
      expect(new Set(fired).size).toBe(fired.length);
      expect(await schedule(agentId)).toMatchObject({ misfire: 'catch_up', catch_up_window: 300 });
    });

    it('refuses a catch_up_window without catch_up, and out-of-range windows or unknown policies', async () => {
      const agentId = await deployedAgent(alice);
      for (const body of [
        { cron: '0 * * * * ? *', catch_up_window: 60 },
        { cron: '0 * * * * ? *', misfire: 'catch_up', catch_up_window: 0 },
        { cron: '0 * * * * ? *', misfire: 'catch_up', catch_up_window: 7 * 24 * 3600 + 1 },
        { cron: '0 * * * * ? *', misfire: 'sometimes' },
      ]) {
        const res = await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: alice.key, body });
        expectProblem(res, 400);
        expect(res.body.detail).toMatch(/catch_up_window|misfire/);
      }
      await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: alice.key, body: { cron: '0 * * * * ? *', misfire: 'catch_up' } });
      expect(await schedule(agentId)).toMatchObject({ misfire: 'catch_up', catch_up_window: 3600 });
    });
  });

  describe('backfill', () => {
    const HOUR = 3_600_000;

    it('starts one run per fire time in the range; a repeat starts nothing new', async () => {
      const agentId = await deployedAgent(alice);
      await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: alice.key, body: { cron: '0 0 * * * ? *' } });
      // Paused, so that no fire of its own joins the runs (a backfill does not need the schedule active).
      await http(base, 'POST', `/v1/agents/${agentId}/schedule/pause`, { key: alice.key });
      const to = Math.floor(Date.now() / HOUR) * HOUR - HOUR; // a whole hour, so both ends are fire times
      const from = to - 4 * HOUR;
      const body = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };

      const first = await http(base, 'POST', `/v1/agents/${agentId}/schedule/backfill`, { key: alice.key, body });
      expect(first.status).toBe(202);
      expect(first.body.runs.map((r: { fire_time: string }) => Date.parse(r.fire_time))).toEqual([0, 1, 2, 3, 4].map((h) => from + h * HOUR));
      const runIds = first.body.runs.map((r: { run_id: string }) => r.run_id);
      expect(new Set(runIds).size).toBe(5);

      const again = await http(base, 'POST', `/v1/agents/${agentId}/schedule/backfill`, {
        key: alice.key,
        body: { from: new Date(from - HOUR / 2).toISOString(), to: body.to },
      });
      expect(again.status).toBe(202);
      expect(again.body.runs.map((r: { run_id: string }) => r.run_id)).toEqual(runIds);
      // Days later, once the fires' idempotency keys are purged, the runs still answer for their fire times.
      await runs.query(`DELETE FROM run_idempotency_keys WHERE key LIKE $1`, [`schedule:${agentId}:%`]);
      const later = await http(base, 'POST', `/v1/agents/${agentId}/schedule/backfill`, { key: alice.key, body });
      expect(later.body.runs.map((r: { run_id: string }) => r.run_id)).toEqual(runIds);
      const listed = (await http(base, 'GET', `/v1/agents/${agentId}/runs?page_size=1000`, { key: alice.key })).body.runs;
      const scheduled = listed.filter((r: { run_kind: string }) => r.run_kind === 'schedule');
      expect(scheduled.map((r: { run_id: string }) => r.run_id).sort()).toEqual([...runIds].sort());
      expect(scheduled.every((r: { schedule_agent_id: string }) => r.schedule_agent_id === agentId)).toBe(true);
    });

    it("a client's Idempotency-Key cannot take a fire's key", async () => {
      const agentId = await deployedAgent(alice);
      await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: alice.key, body: { cron: '0 0 * * * ? *' } });
      await http(base, 'POST', `/v1/agents/${agentId}/schedule/pause`, { key: alice.key });
      const fireTime = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
      const client = await http(base, 'POST', `/v1/agents/${agentId}/runs`, {
        key: alice.key,
        body: {},
        headers: { 'idempotency-key': `schedule:${agentId}:${fireTime}` },
      });
      expect(client.status).toBe(201);
      const at = new Date(fireTime).toISOString();
      const backfill = await http(base, 'POST', `/v1/agents/${agentId}/schedule/backfill`, { key: alice.key, body: { from: at, to: at } });
      expect(backfill.status).toBe(202);
      expect(backfill.body.runs).toHaveLength(1);
      expect(backfill.body.runs[0].run_id).not.toBe(client.body.run.run_id);
    });

    it('refuses bad ranges with a 400 that says why', async () => {
      const agentId = await deployedAgent(alice);
      await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: alice.key, body: { cron: '* * * * * ? *' } });
      const now = Date.now();
      const iso = (ms: number) => new Date(ms).toISOString();
      for (const [body, why] of [
        [{ from: iso(now - 1000), to: iso(now + HOUR) }, /future/],
        [{ from: iso(now - 1000), to: iso(now - 2000) }, /after/],
        [{ from: iso(now - HOUR), to: iso(now - 1000) }, /more than 100 fire times/],
        [{ from: 'yesterday', to: iso(now) }, /from/],
        [{ to: iso(now) }, /from/],
      ] as const) {
        const res = await http(base, 'POST', `/v1/agents/${agentId}/schedule/backfill`, { key: alice.key, body });
        expectProblem(res, 400);
        expect(res.body.detail).toMatch(why);
      }
    });

    it("another user's agent, an agent without a schedule and an unknown agent are 404s, starting nothing", async () => {
      const agentId = await deployedAgent(alice);
      await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: alice.key, body: { cron: '0 0 * * * ? *' } });
      const mallory = await freshUser(system, 'mallory');
      const range = { from: new Date(Date.now() - 3 * HOUR).toISOString(), to: new Date(Date.now() - 1000).toISOString() };
      expectProblem(await http(base, 'POST', `/v1/agents/${agentId}/schedule/backfill`, { key: mallory.key, body: range }), 404);
      expectProblem(await http(base, 'GET', `/v1/agents/${agentId}/schedule`, { key: mallory.key }), 404);
      const unscheduled = await deployedAgent(alice);
      expectProblem(await http(base, 'POST', `/v1/agents/${unscheduled}/schedule/backfill`, { key: alice.key, body: range }), 404);
      expectProblem(await http(base, 'POST', `/v1/agents/00000000-0000-4000-8000-000000000000/schedule/backfill`, { key: alice.key, body: range }), 404);
      expect(await firedTimes(agentId)).toEqual([]);
    });
  });
});

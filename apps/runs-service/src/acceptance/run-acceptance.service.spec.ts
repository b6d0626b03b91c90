import { AgentStartContext } from '@aas/contracts';
import { ServiceClient, Transaction, afterCommit } from '@aas/platform';
import { ConflictError, QuotaExceededError, ResourceNotFoundError, ValidationFailedError, toProblem } from '@aas/problem-details';
import { BudgetGuard } from '../budgets/budget-guard';
import { RunLifecycle } from '../lifecycle/run-lifecycle.service';
import { RunAcceptance } from './run-acceptance.service';
import { ownedKey } from './run-acceptance.store';
import { FakeRunAcceptanceStore } from './run-acceptance.store.fake';
import { RunStartLimits } from './run-start-limits';
import { RunStartRequest } from './run-start-request';

const USER = '0b6c1d8e-2f5a-4c3b-9d7e-1a2b3c4d5e6f';
const DEPLOYED = '11111111-1111-4111-8111-111111111111';
const UNDEPLOYED = '22222222-2222-4222-8222-222222222222';
const OTHER_USER = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
const OTHER_USERS_AGENT = '44444444-4444-4444-8444-444444444444';

describe(RunAcceptance.name, () => {
  /** `spentAgents`: the agents whose budget is spent (a refusal naming agent_daily_credits). */
  function setup(limits = new RunStartLimits(0, 0), spentAgents: string[] = []) {
    const tables = new FakeRunAcceptanceStore();
    const agents: AgentStartContext[] = [
      { agent_id: DEPLOYED, generation: 7, user_id: USER, user_email: 'a@example.test', deployment_state: 'deployed' },
      { agent_id: UNDEPLOYED, generation: 8, user_id: USER, user_email: 'a@example.test', deployment_state: 'not_deployed' },
      { agent_id: OTHER_USERS_AGENT, generation: 9, user_id: OTHER_USER, user_email: 'b@example.test', deployment_state: 'deployed' },
    ];
    // agents-service validates what it is asked: a non-uuid id would be a 400 there.
    const services = {
      request: async (_pattern: string, message: { agents: Array<{ agent_id: string }> }) => {
        if (message.agents.some((a) => !/^[0-9a-f-]{36}$/.test(a.agent_id))) throw new ValidationFailedError('agent_id must be a UUID');
        return { agents };
      },
    } as unknown as ServiceClient;
    // The lifecycle's admission, with no limits (admission/ has its own tests): every waiting run is admitted, unless `admits` is off.
    const admission = { admits: true, queued: [] as string[] };
    const waiting = (userId: string) => tables.runs.filter((r) => r.userId === userId && r.admittedAt === null && !r.isFinished);
    const lifecycle = {
      admitIn: async (tx: Transaction, userIds: string[]) => {
        const admitted = admission.admits ? [...new Set(userIds)].flatMap(waiting) : [];
        for (const run of admitted) run.admittedAt = new Date();
        afterCommit(tx, () => void admission.queued.push(...admitted.map((r) => r.id)));
        return admitted.length;
      },
      waitingIn: async (_tx: Transaction, userIds: string[], max: number) => new Map(userIds.map((userId) => [userId, Math.min(waiting(userId).length, max)])),
      removedIn: () => undefined,
    } as unknown as RunLifecycle;
    // Budgets have their own tests (budgets/, test/budgets.e2e-spec.ts); here only what a refusal does to a start.
    const budgets = {
      refusalsIn: async (_tx: Transaction, runs: Array<{ agentId: string }>) =>
        runs.map((r) => (spentAgents.includes(r.agentId) ? new QuotaExceededError('spent', 'agent_daily_credits', 10) : undefined)),
    } as unknown as BudgetGuard;
    const sut = new RunAcceptance(tables, services, lifecycle, limits, budgets);
    return { sut, tables, admission };
  }

  const request = (fields: Partial<RunStartRequest> = {}): RunStartRequest => ({
    userId: USER,
    agentId: DEPLOYED,
    idempotencyKey: null,
    runMode: 'run',
    goal: null,
    trigger: { runKind: 'api', scheduleAgentId: null },
    skipDeployCheck: false,
    ...fields,
  });

  it('stores and queues a new run for each request without a key, numbered per agent', async () => {
    const { sut, tables, admission } = setup();
    const outcomes = await sut.accept([request(), request({ goal: 'second' })]);
    expect(outcomes).toEqual([
      { runId: expect.any(String), created: true },
      { runId: expect.any(String), created: true },
    ]);
    expect(tables.runs.map((r) => [r.runNumber, r.goal, r.status])).toEqual([
      [1, null, 'in_progress'],
      [2, 'second', 'in_progress'],
    ]);
    expect(tables.runs.every((r) => r.admittedAt !== null)).toBe(true);
    expect(admission.queued).toEqual(tables.runs.map((r) => r.id));
  });

  it('answers a key taken before with its run, and the same key twice in one batch with one run', async () => {
    const { sut, tables } = setup();
    const [first] = await sut.accept([request({ idempotencyKey: 'api:k' })]);
    const again = await sut.accept([request({ idempotencyKey: 'api:k' }), request({ idempotencyKey: 'api:k' })]);
    expect(again).toEqual([
      { runId: (first as { runId: string }).runId, created: false },
      { runId: (first as { runId: string }).runId, created: false },
    ]);
    const pair = await sut.accept([request({ idempotencyKey: 'api:new' }), request({ idempotencyKey: 'api:new' })]);
    expect(pair[0]).toEqual(pair[1]);
    expect(tables.runs).toHaveLength(2);
  });

  it("keeps two users' equal keys apart in one batch, and refuses one user's key for two agents in one batch", async () => {
    const { sut, tables } = setup();
    const outcomes = await sut.accept([
      request({ idempotencyKey: 'api:retry-1' }),
      request({ userId: OTHER_USER, agentId: OTHER_USERS_AGENT, idempotencyKey: 'api:retry-1' }),
      request({ agentId: UNDEPLOYED, idempotencyKey: 'api:retry-1', runMode: 'build' }),
    ]);
    expect(outcomes[0]).toEqual({ runId: expect.any(String), created: true });
    expect(outcomes[1]).toEqual({ runId: expect.any(String), created: true });
    expect((outcomes[0] as { runId: string }).runId).not.toBe((outcomes[1] as { runId: string }).runId);
    expect((outcomes[2] as { refusal: Error }).refusal).toBeInstanceOf(ConflictError);
    expect(tables.runs.map((r) => [r.userId, r.agentId])).toEqual([
      [USER, DEPLOYED],
      [OTHER_USER, OTHER_USERS_AGENT],
    ]);
    // Each user's retry answers that user's own run; a batch led by the other agent's request still answers the key's owner.
    const again = await sut.accept([
      request({ agentId: UNDEPLOYED, idempotencyKey: 'api:retry-1', runMode: 'build' }),
      request({ idempotencyKey: 'api:retry-1' }),
      request({ userId: OTHER_USER, agentId: OTHER_USERS_AGENT, idempotencyKey: 'api:retry-1' }),
    ]);
    expect((again[0] as { refusal: Error }).refusal).toBeInstanceOf(ConflictError);
    expect(again.slice(1)).toEqual([
      { runId: (outcomes[0] as { runId: string }).runId, created: false },
      { runId: (outcomes[1] as { runId: string }).runId, created: false },
    ]);
  });

  it('refuses a key taken by a run of another agent, an unknown agent, and a run of an undeployed agent; the others start', async () => {
    const { sut, tables } = setup();
    await sut.accept([request({ idempotencyKey: 'api:k' })]);
    const outcomes = await sut.accept([
      request({ agentId: UNDEPLOYED, idempotencyKey: 'api:k', runMode: 'build' }),
      request({ agentId: '33333333-3333-4333-8333-333333333333' }),
      request({ agentId: "1'; DROP TABLE runs;--" }),
      request({ agentId: UNDEPLOYED }),
      request({ agentId: UNDEPLOYED, skipDeployCheck: true }),
    ]);
    expect((outcomes[0] as { refusal: Error }).refusal).toBeInstanceOf(ConflictError);
    expect((outcomes[1] as { refusal: Error }).refusal).toBeInstanceOf(ResourceNotFoundError);
    expect((outcomes[2] as { refusal: Error }).refusal).toBeInstanceOf(ResourceNotFoundError);
    expect((outcomes[3] as { refusal: Error }).refusal).toBeInstanceOf(ValidationFailedError);
    expect(outcomes[4]).toEqual({ runId: expect.any(String), created: true });
    expect(tables.runs.map((r) => r.agentId)).toEqual([DEPLOYED, UNDEPLOYED]);
  });

  it('answers a fire time that already has a run with that run, also once its key is gone', async () => {
    const { sut, tables } = setup();
    const fire = (key: string) => request({ idempotencyKey: key, dueAt: new Date('2026-01-01T00:00:00Z') });
    const [first] = await sut.accept([fire('schedule:x')]);
    tables.keys.clear(); // purged after 24 hours
    expect(await sut.accept([fire('schedule:x')])).toEqual([{ runId: (first as { runId: string }).runId, created: false }]);
    expect(tables.runs).toHaveLength(1);
    expect(tables.runs[0].scheduledFor).toEqual(new Date('2026-01-01T00:00:00Z'));
  });

  it('numbers the new runs of one agent in due-time order', async () => {
    const { sut, tables } = setup();
    const later = request({ idempotencyKey: 'schedule:b', dueAt: new Date('2026-01-01T00:00:02Z') });
    const earlier = request({ idempotencyKey: 'schedule:a', dueAt: new Date('2026-01-01T00:00:01Z') });
    const [laterOutcome, earlierOutcome] = await sut.accept([later, earlier]);
    const numberOf = (o: unknown) => tables.runs.find((r) => r.id === (o as { runId: string }).runId)!.runNumber;
    expect([numberOf(earlierOutcome), numberOf(laterOutcome)]).toEqual([1, 2]);
  });

  it("refuses a fire of another generation of the agent, and a start of a generation older than the one holding the id", async () => {
    const { sut, tables } = setup();
    const [stale] = await sut.accept([request({ agentGeneration: 6 })]);
    expect((stale as { refusal: unknown }).refusal).toBeInstanceOf(ResourceNotFoundError);
    const [same] = await sut.accept([request({ agentGeneration: 7 })]);
    expect(same).toEqual({ runId: expect.any(String), created: true });
    expect(tables.runs.map((r) => r.agentGeneration)).toEqual(['7']);
    tables.generations.set(DEPLOYED, 9);
    const [older] = await sut.accept([request()]);
    expect((older as { refusal: unknown }).refusal).toBeInstanceOf(ResourceNotFoundError);
    expect(tables.runs).toHaveLength(1);
  });

  describe('start limits', () => {
    const ROOT = '44444444-4444-4444-8444-444444444444';
    const chained = (key: string) =>
      request({ idempotencyKey: `trigger:${key}`, trigger: { runKind: 'event', scheduleAgentId: null, depth: 2, chainRootId: ROOT } });

    it('refuses the runs of a chain past TRIGGER_CHAIN_MAX_RUNS naming the quota, counts a retried start once, and frees a refused key', async () => {
      const { sut, tables } = setup(new RunStartLimits(0, 2));
      const first = await sut.accept([chained('a'), chained('b'), chained('c')]);
      expect(first.map((o) => ('refusal' in o ? (o.refusal as QuotaExceededError).quota : 'started'))).toEqual(['started', 'started', 'trigger_chain_runs']);
      expect(tables.chains.get(ROOT)).toBe(2);
      expect(tables.runs.map((r) => r.chainRootId)).toEqual([ROOT, ROOT]);
      // The same event delivered again: its runs are answered, not counted, and the refused one is judged again.
      const again = await sut.accept([chained('a'), chained('b'), chained('c')]);
      expect(again.slice(0, 2)).toEqual(first.slice(0, 2).map((o) => ({ ...o, created: false })));
      expect((again[2] as { refusal: QuotaExceededError }).refusal.quota).toBe('trigger_chain_runs');
      expect(tables.chains.get(ROOT)).toBe(2);
      expect(tables.keys.has(ownedKey(USER, 'trigger:c'))).toBe(false);
      // A run that starts its own chain is not counted.
      expect(await sut.accept([request()])).toEqual([{ runId: expect.any(String), created: true }]);
    });

    it('refuses a start of an agent whose budget is spent before the other limits: no run, no room taken, its key freed', async () => {
      const { sut, tables } = setup(new RunStartLimits(1, 0), [UNDEPLOYED]);
      const outcomes = await sut.accept([request({ agentId: UNDEPLOYED, skipDeployCheck: true, idempotencyKey: 'api:spent' }), request()]);
      expect(toProblem((outcomes[0] as { refusal: QuotaExceededError }).refusal)).toMatchObject({ status: 422, quota: 'agent_daily_credits', limit: 10 });
      expect(outcomes[1]).toEqual({ runId: expect.any(String), created: true });
      expect(tables.runs.map((r) => r.agentId)).toEqual([DEPLOYED]);
      expect(tables.keys.has(ownedKey(USER, 'api:spent'))).toBe(false);
    });

    it('refuses a start while the user has QUOTA_WAITING_RUNS_PER_USER runs waiting for admission, with a 422 naming waiting_runs_per_user', async () => {
      const { sut, tables, admission } = setup(new RunStartLimits(2, 0));
      admission.admits = false;
      const outcomes = await sut.accept([request(), request(), request({ idempotencyKey: 'api:third' })]);
      const refusal = (outcomes[2] as { refusal: QuotaExceededError }).refusal;
      expect(refusal).toBeInstanceOf(QuotaExceededError);
      expect(toProblem(refusal)).toMatchObject({ status: 422, type: 'urn:aas:problem:quota-exceeded', quota: 'waiting_runs_per_user', limit: 2 });
      expect(tables.runs).toHaveLength(2);
      expect(tables.keys.has(ownedKey(USER, 'api:third'))).toBe(false);
      // Once one of them is admitted, there is room for one more.
      tables.runs[0].admittedAt = new Date();
      expect(await sut.accept([request({ idempotencyKey: 'api:third' })])).toEqual([{ runId: expect.any(String), created: true }]);
      expect(tables.runs.map((r) => r.runNumber)).toEqual([1, 2, 3]);
    });
  });
});

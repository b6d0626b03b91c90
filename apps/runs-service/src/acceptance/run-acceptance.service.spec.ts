import { AgentStartContext } from '@aas/contracts';
import { OutboxRelay, ServiceClient } from '@aas/platform';
import { ConflictError, ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { CancelSignals } from '../execution/cancel-signals';
import { RunAcceptance } from './run-acceptance.service';
import { FakeRunAcceptanceStore } from './run-acceptance.store.fake';
import { RunStartRequest } from './run-start-request';

const USER = '0b6c1d8e-2f5a-4c3b-9d7e-1a2b3c4d5e6f';
const DEPLOYED = '11111111-1111-4111-8111-111111111111';
const UNDEPLOYED = '22222222-2222-4222-8222-222222222222';

describe(RunAcceptance.name, () => {
  function setup() {
    const tables = new FakeRunAcceptanceStore();
    const agents: AgentStartContext[] = [
      { agent_id: DEPLOYED, generation: 7, user_id: USER, user_email: 'a@example.test', deployment_state: 'deployed' },
      { agent_id: UNDEPLOYED, generation: 8, user_id: USER, user_email: 'a@example.test', deployment_state: 'not_deployed' },
    ];
    // agents-service validates what it is asked: a non-uuid id would be a 400 there.
    const services = {
      request: async (_pattern: string, message: { agents: Array<{ agent_id: string }> }) => {
        if (message.agents.some((a) => !/^[0-9a-f-]{36}$/.test(a.agent_id))) throw new ValidationFailedError('agent_id must be a UUID');
        return { agents };
      },
    } as unknown as ServiceClient;
    let kicks = 0;
    const outbox = { kick: () => kicks++ } as unknown as OutboxRelay;
    const cancels = { signal: async () => undefined } as unknown as CancelSignals;
    const sut = new RunAcceptance(tables, services, outbox, cancels);
    return { sut, tables, kicks: () => kicks };
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
    const { sut, tables, kicks } = setup();
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
    expect(kicks()).toBe(1);
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
});

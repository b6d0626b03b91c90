import { RUN_START_BATCH_MAX, ScheduleFireEvent } from '@aas/contracts';
import { ProblemCode, RemoteProblemError, problemFromCode } from '@aas/problem-details';
import { FireBatcher, LATE_FIRES_GATHER_MS } from './fire-batcher';
import { ScheduledRunStarter } from './scheduled-run-starter';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');

const fireAt = (ms: number, agent = `agent-${Math.random()}`): ScheduleFireEvent => ({
  agent_id: agent,
  user_id: 'user',
  fire_time: new Date(ms).toISOString(),
});

/** Records the batches it is given; `failWith` makes the next batches fail, `poisoned` any batch holding that agent's fire. */
class FakeStarter {
  readonly batches: ScheduleFireEvent[][] = [];
  failWith?: Error;
  poisoned?: string;

  async start(fires: ScheduleFireEvent[]): Promise<void> {
    this.batches.push(fires);
    if (this.failWith) throw this.failWith;
    if (fires.some((f) => f.agent_id === this.poisoned)) throw new RemoteProblemError(problemFromCode(ProblemCode.Internal, 'unexpected'));
  }
}

describe(FireBatcher.name, () => {
  let starter: FakeStarter;
  let sut: FireBatcher;

  beforeEach(() => {
    jest.useFakeTimers({ now: NOW });
    starter = new FakeStarter();
    sut = new FireBatcher(starter as unknown as ScheduledRunStarter);
  });
  afterEach(() => jest.useRealTimers());

  it('starts the fires of one instant together, at that instant', async () => {
    const fires = [fireAt(NOW + 500), fireAt(NOW + 500), fireAt(NOW + 500)];
    const done = Promise.all(fires.map((f) => sut.fire(f)));
    await jest.advanceTimersByTimeAsync(499);
    expect(starter.batches).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    await done;
    expect(starter.batches).toEqual([fires]);
  });

  it('keeps fires of different instants apart', async () => {
    const first = fireAt(NOW + 100);
    const second = fireAt(NOW + 200);
    const done = Promise.all([sut.fire(second), sut.fire(first)]);
    await jest.advanceTimersByTimeAsync(200);
    await done;
    expect(starter.batches).toEqual([[first], [second]]);
  });

  it('starts fires already due after a short gathering, together', async () => {
    const first = sut.fire(fireAt(NOW - 3000, 'a'));
    await jest.advanceTimersByTimeAsync(LATE_FIRES_GATHER_MS - 1);
    const second = sut.fire(fireAt(NOW - 3000, 'b'));
    expect(starter.batches).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    await Promise.all([first, second]);
    expect(starter.batches.map((b) => b.map((f) => f.agent_id))).toEqual([['a', 'b']]);
  });

  it('a fire arriving after its instant was started goes in a batch of its own', async () => {
    const onTime = fireAt(NOW + 100);
    const first = sut.fire(onTime);
    await jest.advanceTimersByTimeAsync(100);
    await first;
    const straggler = fireAt(NOW + 100);
    const second = sut.fire(straggler);
    await jest.advanceTimersByTimeAsync(LATE_FIRES_GATHER_MS);
    await second;
    expect(starter.batches).toEqual([[onTime], [straggler]]);
  });

  it('fails every fire of a failed batch, so that each job is retried', async () => {
    starter.failWith = new Error('runs-service unavailable');
    const results = Promise.allSettled([sut.fire(fireAt(NOW + 10)), sut.fire(fireAt(NOW + 10))]);
    await jest.advanceTimersByTimeAsync(10);
    expect((await results).map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });

  it('starts again in halves a batch runs-service refused whole, so only the fire to blame fails', async () => {
    starter.poisoned = 'bad';
    const fires = ['a', 'b', 'bad', 'c', 'd'].map((agent) => fireAt(NOW + 10, agent));
    const results = Promise.allSettled(fires.map((f) => sut.fire(f)));
    await jest.advanceTimersByTimeAsync(10);
    expect((await results).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(starter.batches[0]).toHaveLength(5);
  });

  it('splits an instant with more fires than one request may carry', async () => {
    const fires = Array.from({ length: RUN_START_BATCH_MAX + 1 }, () => fireAt(NOW + 10));
    const done = Promise.all(fires.map((f) => sut.fire(f)));
    await jest.advanceTimersByTimeAsync(10);
    await done;
    expect(starter.batches.map((b) => b.length)).toEqual([RUN_START_BATCH_MAX, 1]);
  });
});

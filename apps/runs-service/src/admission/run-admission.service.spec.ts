import { ConfigService } from '@nestjs/config';
import { Transaction } from '@aas/platform';
import { RunsEnv } from '../config/runs.env';
import { FakeTransactions } from '../database/transactions.fake';
import { AdmissionLimits } from './admission-limits';
import { AdmissionRow, FakeAdmissionStore } from './admission.store.fake';
import { admitUser } from './admit-user';
import { RunAdmission } from './run-admission.service';

const [ALICE, BOB] = ['a0000000-0000-4000-8000-000000000000', 'b0000000-0000-4000-8000-000000000000'];
const [A1, A2] = ['a1', 'a2'];
const tx = {} as Transaction;

let clock = Date.parse('2026-01-01T00:00:00Z');
function run(userId: string, agentId: string, fields: Partial<AdmissionRow> = {}): AdmissionRow {
  clock += 1000;
  return { id: `run-${clock}`, userId, agentId, startedAt: new Date(clock), runNumber: 1, admitted: false, finished: false, ...fields };
}

describe(admitUser.name, () => {
  const limits = (perUser: number | null, perAgent: number | null): AdmissionLimits => ({ perUser, perAgent });

  it("admits the user's oldest waiting runs up to the user's room, each job's priority after the runs executing before it", async () => {
    const store = new FakeAdmissionStore();
    const executing = run(ALICE, A1, { admitted: true });
    const waiting = [run(ALICE, A1), run(ALICE, A2), run(ALICE, A1), run(ALICE, A2)];
    store.rows.push(executing, ...waiting);
    const admitted = await admitUser(store, tx, ALICE, limits(3, null));
    expect(admitted).toEqual([
      { runId: waiting[0].id, priority: 2 },
      { runId: waiting[1].id, priority: 3 },
    ]);
    expect(store.queued).toEqual(admitted!.map((a) => ({ run_id: a.runId, priority: a.priority })));
  });

  it("keeps each agent within its own room, letting the user's other agents' runs pass", async () => {
    const store = new FakeAdmissionStore();
    const waiting = [run(ALICE, A1), run(ALICE, A1), run(ALICE, A2)];
    store.rows.push(...waiting);
    const admitted = await admitUser(store, tx, ALICE, limits(null, 1));
    expect(admitted!.map((a) => a.runId)).toEqual([waiting[0].id, waiting[2].id]);
  });

  it('admits nothing and queues nothing when another transaction is admitting the user (skip-if-busy)', async () => {
    const store = new FakeAdmissionStore();
    store.rows.push(run(ALICE, A1));
    store.busy.add(ALICE);
    expect(await admitUser(store, tx, ALICE, limits(2, 2), 'skip-if-busy')).toBeNull();
    expect([store.rows[0].admitted, store.queued]).toEqual([false, []]);
  });
});

describe(RunAdmission.name, () => {
  function setup(perUser = 2, perAgent = 0) {
    const store = new FakeAdmissionStore();
    const settings: Record<string, number> = { RUN_CONCURRENCY_PER_USER: perUser, RUN_CONCURRENCY_PER_AGENT: perAgent, RUN_WORKER_CONCURRENCY: 8 };
    const config = { get: (name: string) => settings[name] } as unknown as ConfigService<RunsEnv, true>;
    const sut = new RunAdmission(store, new FakeTransactions(), config);
    return { sut, store };
  }

  it('admits for each user of an accepted batch once, in user id order (the lock order that cannot deadlock)', async () => {
    const { sut, store } = setup();
    store.rows.push(run(BOB, A2), run(ALICE, A1));
    const admitted = await sut.admitIn(tx, [BOB, ALICE, BOB]);
    expect(store.locked).toEqual([ALICE, BOB]);
    expect(admitted.map((a) => a.runId).sort()).toEqual(store.rows.map((r) => r.id).sort());
  });

  it('admits a user in a transaction of its own when told a run ended', async () => {
    const { sut, store } = setup(1);
    const [ended, next] = [run(ALICE, A1, { admitted: true, finished: true }), run(ALICE, A1)];
    store.rows.push(ended, next);
    sut.kick(ALICE);
    await sut.beforeApplicationShutdown();
    expect(store.queued).toEqual([{ run_id: next.id, priority: 1 }]);
  });

  it('reads the settings: 0 is no limit', () => {
    expect(setup(0, 3).sut.limits).toEqual({ perUser: null, perAgent: 3 });
  });
});

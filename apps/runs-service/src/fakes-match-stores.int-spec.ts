import { randomUUID } from 'node:crypto';
import { isolatedInfra } from '../../../test/support/isolated-infra';
import { AdmissionLimits } from './admission/admission-limits';
import { AdmissionStore } from './admission/admission.store';
import { AdmissionRow, FakeAdmissionStore } from './admission/admission.store.fake';
import { admitUser } from './admission/admit-user';
import { PostgresAdmissionStore } from './admission/postgres-admission.store';
import { runRow } from './database/run-row.fake';
import { RunEntity } from './database/run.entity';
import { RunsTestDatabase, openRunsTestDatabase } from './database/runs-test-database';
import { FakeTransactions } from './database/transactions.fake';
import { PostgresRunRecordStore } from './lifecycle/postgres-run-record.store';
import { RunRecordStore } from './lifecycle/run-record.store';
import { FakeRunRecordStore } from './lifecycle/run-record.store.fake';
import { RunRecorder } from './lifecycle/run-recorder';
import { recorderOnFakes } from './lifecycle/run-recorder.fake';
import { transitionFor } from './execution/line-transition';
import { fail, start, stop } from './lifecycle/run-transition';
import { PostgresRunStore } from './runs/postgres-run.store';
import { RunStore } from './runs/run.store';
import { FakeRunStore } from './runs/run.store.fake';
import { OutboxRelay, PostgresTransactions, Transactions } from '@aas/platform';

const infra = isolatedInfra();

/** The stores of one side, with how to put runs in and read the outbox back. */
interface Side {
  records: RunRecordStore;
  runs: RunStore;
  admission: AdmissionStore;
  transactions: Transactions;
  recorder: RunRecorder;
  seed(runs: RunEntity[]): Promise<void>;
  /** The outbox events about these runs, in order: [event, run_id, seq or priority]. */
  outbox(runIds: string[]): Promise<unknown[][]>;
}

/**
 * The in-memory fakes the unit tests use answer as the PostgreSQL stores do: each scenario runs once on
 * the stores and once on the fakes, and must see the same.
 */
describe('the fakes of the runs-service stores', () => {
  let database: RunsTestDatabase;

  beforeAll(async () => {
    database = await openRunsTestDatabase(infra.databaseUrl);
  });
  afterAll(async () => {
    await database?.close();
    await infra.dispose();
  });

  // The relay's kick after a commit; publishing is not what these tests compare.
  const relay = { kickAfterCommit: () => undefined } as unknown as OutboxRelay;
  const outboxRow = (event: string, payload: Record<string, unknown>) => [event, payload.run_id, payload.seq ?? payload.priority ?? null];

  function postgres(): Side {
    const { dataSource } = database;
    const records = new PostgresRunRecordStore(dataSource, relay);
    const transactions = new PostgresTransactions(dataSource);
    return {
      records,
      runs: new PostgresRunStore(dataSource, relay),
      admission: new PostgresAdmissionStore(dataSource, relay),
      transactions,
      recorder: recorderOnFakes(records, {}, transactions).recorder,
      seed: async (runs) => void (await dataSource.manager.insert(RunEntity, runs)),
      outbox: async (runIds) =>
        (
          await database.pool.query(`SELECT event, payload FROM outbox WHERE payload->>'run_id' = ANY($1::text[]) ORDER BY seq`, [runIds])
        ).rows.map((row) => outboxRow(row.event, row.payload)),
    };
  }

  function fake(): Side {
    const records = new FakeRunRecordStore();
    const admission = new FakeAdmissionStore();
    return {
      records,
      runs: new FakeRunStore(records),
      admission,
      transactions: new FakeTransactions(),
      recorder: recorderOnFakes(records).recorder,
      seed: async (runs) => {
        for (const run of runs) records.runs.set(run.id, { ...run });
        admission.rows.push(...runs.map((run): AdmissionRow => admissionRow(run)));
      },
      outbox: async (runIds) => [
        ...records.outbox.map((w) => outboxRow(w.event, w.payload as Record<string, unknown>)),
        ...admission.queued.map((q) => outboxRow('run.queued', q as unknown as Record<string, unknown>)),
      ].filter((row) => runIds.includes(row[1] as string)),
    };
  }

  async function same<T>(scenario: (side: Side) => Promise<T>): Promise<void> {
    const onPostgres = await scenario(postgres());
    expect(await scenario(fake())).toEqual(onPostgres);
  }

  /** Runs of one new agent and user, each started a second after every run before (no ties in age), the same rows on both sides. */
  let seconds = 0;
  function runs(count: number, fields: Partial<RunEntity> = {}): RunEntity[] {
    const userId = randomUUID();
    const agentId = randomUUID();
    return Array.from({ length: count }, (_, i) =>
      runRow({ id: randomUUID(), userId, agentId, runNumber: i + 1, startedAt: new Date(Date.UTC(2026, 0, 1) + ++seconds * 1000), ...fields }),
    );
  }

  it('recording a run: its events, counters and outbox, nothing after it ends; reading, paging and deleting its events', async () => {
    const [run, other] = runs(2);
    await same(async (side) => {
      await side.seed([run, other]);
      const lines = [{ type: 'step', title: 'a' }, { type: 'instructions', content: 'c', plan_steps: [] }, { type: 'message', text: 'hi' }];
      const results = [await side.recorder.apply(run.id, start)];
      for (const line of lines) results.push(await side.recorder.apply(run.id, (state) => transitionFor(state, line)));
      results.push(await side.recorder.apply(run.id, (state) => stop(state, 'enough')));
      results.push(await side.recorder.apply(run.id, (state) => fail(state, 'late')));
      results.push(await side.recorder.apply(randomUUID(), start));
      const saved = (await side.records.find(run.id))!;
      const page = await side.runs.events(run.id, 1, 2);
      const owned = await Promise.all([side.runs.findOwned(run.id, run.agentId, run.userId), side.runs.findOwned(run.id, run.agentId, randomUUID())]);
      await side.transactions.run((tx) => side.runs.delete(tx, run.id));
      return {
        results,
        saved: [saved.status, saved.isFinished, saved.eventCount, saved.stepCount, saved.wroteInstructions, saved.finishedAt !== null],
        page: page.map((e) => [e.eventIndex, e.event]),
        owned: owned.map((r) => r?.id ?? null),
        outbox: await side.outbox([run.id]),
        afterDelete: [await side.runs.findById(run.id), await side.runs.events(run.id, undefined, 10), (await side.runs.findByIds([run.id, other.id])).map((r) => r.id)],
      };
    });
  });

  it("counting a user's waiting runs: not admitted and not finished, up to the most asked for", async () => {
    const waiting = runs(3, { admittedAt: null });
    const userId = waiting[0].userId;
    const others = [...runs(1), ...runs(1, { admittedAt: null, isFinished: true })].map((run) => ({ ...run, userId }));
    const nobody = randomUUID();
    await same(async (side) => {
      await side.seed([...waiting, ...others]);
      const count = (max: number) => side.transactions.run(async (tx) => [...(await side.admission.countWaiting(tx, [userId, nobody], max))].sort());
      return [await count(10), await count(2)];
    });
  });

  it.each([
    ['the user limit', { perUser: 2, perAgent: null }],
    ['the agent limit', { perUser: null, perAgent: 1 }],
    ['no limit', { perUser: null, perAgent: null }],
  ] as Array<[string, AdmissionLimits]>)('admission under %s: which runs, in which order, with which priorities', async (_, limits) => {
    const first = runs(3, { admittedAt: null });
    const second = runs(2, { admittedAt: null }).map((run) => ({ ...run, userId: first[0].userId }));
    const executing = runs(1).map((run) => ({ ...run, userId: first[0].userId, agentId: first[0].agentId, runNumber: 10 }));
    const all = [...first, ...second, ...executing];
    await same(async (side) => {
      await side.seed(all);
      const userId = first[0].userId;
      const before = await side.admission.usersToAdmit(limits);
      const admitted = await side.transactions.run((tx) => admitUser(side.admission, tx, userId, limits));
      const again = await side.transactions.run((tx) => admitUser(side.admission, tx, userId, limits));
      return {
        waiting: before.includes(userId),
        admitted: admitted!.map((a) => [all.findIndex((r) => r.id === a.runId), a.priority]),
        again,
        outbox: (await side.outbox(all.map((r) => r.id))).map(([event, runId, priority]) => [event, all.findIndex((r) => r.id === runId), priority]),
      };
    });
  });
});

function admissionRow(run: RunEntity): AdmissionRow {
  return {
    id: run.id,
    userId: run.userId,
    agentId: run.agentId,
    startedAt: run.startedAt,
    runNumber: run.runNumber,
    admitted: run.admittedAt !== null,
    finished: run.isFinished,
  };
}

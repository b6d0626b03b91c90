import { ConfigService } from '@nestjs/config';
import { RunEndEffects } from '@aas/contracts';
import { Transactions } from '@aas/platform';
import { Registry } from 'prom-client';
import { RunAdmission } from '../admission/run-admission.service';
import { RunsEnv } from '../config/runs.env';
import { FakeTransactions } from '../database/transactions.fake';
import { CancelSignals } from './cancel-signals';
import { RunEndEffectsApplier } from './run-end-effects';
import { RunEnds } from './run-ends';
import { RunEventChannel } from './run-event-channel';
import { RunLifecycle } from './run-lifecycle.service';
import { RunMetrics } from './run-metrics';
import { RunMetricsStore } from './run-metrics.store';
import { RunRecordStore } from './run-record.store';
import { FakeRunRecordStore } from './run-record.store.fake';
import { RunRecorder } from './run-recorder';

/** Records the ends whose effects it was asked to apply; fails while `failing` is set. */
export class FakeRunEndEffects extends RunEndEffectsApplier {
  readonly applied: RunEndEffects[] = [];
  failing?: Error;

  async apply(end: RunEndEffects): Promise<void> {
    if (this.failing) throw this.failing;
    this.applied.push(end);
  }
}

/**
 * A RunLifecycle (and its RunRecorder) on a store (a FakeRunRecordStore unless given, with FakeTransactions;
 * a PostgreSQL store takes PostgresTransactions) for tests, with what it tells others once a change has
 * committed: the events pushed to live streams, the streams ended, the runs whose workers were signalled,
 * the users whose admission was kicked, and the run ends whose effects were applied.
 */
export function recorderOnFakes(store: RunRecordStore = new FakeRunRecordStore(), settings: Partial<RunsEnv> = {}, transactions: Transactions = new FakeTransactions()) {
  const pushed: Array<{ runId: string; index: number; finished: boolean }> = [];
  const gone: string[] = [];
  const admissionKicks: string[] = [];
  const signalled: string[] = [];
  const channel = {
    recorded: (runId: string, item: { event_index: number }, finished: boolean) => pushed.push({ runId, index: item.event_index, finished }),
    gone: (runId: string) => gone.push(runId),
  } as unknown as RunEventChannel;
  const cancels = {
    signal: async (runId: string) => void signalled.push(runId),
    register: () => () => undefined,
    abortAll: () => undefined,
  } as unknown as CancelSignals;
  const metrics = new RunMetrics({} as RunMetricsStore, new Registry());
  const admission = { kick: (userId: string) => admissionKicks.push(userId) } as unknown as RunAdmission;
  const env: Partial<RunsEnv> = { RPC_TIMEOUT_MS: 10_000, RUN_END_EFFECTS_TIMEOUT_MS: 300_000, ...settings };
  const config = { get: (key: keyof RunsEnv) => env[key] } as unknown as ConfigService<RunsEnv, true>;
  const effects = new FakeRunEndEffects();
  const ends = new RunEnds(store, effects, transactions, metrics, channel, admission, config);
  const recorder = new RunRecorder(store, transactions, channel, ends);
  const lifecycle = new RunLifecycle(recorder, cancels, channel, admission, ends);
  return { recorder, lifecycle, ends, effects, channel, pushed, gone, signalled, admissionKicks, transactions };
}

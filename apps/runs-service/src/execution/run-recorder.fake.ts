import { OutboxRelay } from '@aas/platform';
import { Registry } from 'prom-client';
import { RunAdmission } from '../admission/run-admission.service';
import { RunEventChannel } from './run-event-channel';
import { RunMetrics } from './run-metrics';
import { RunMetricsStore } from './run-metrics.store';
import { RunRecordStore } from './run-record.store';
import { FakeRunRecordStore } from './run-record.store.fake';
import { RunRecorder } from './run-recorder';

/**
 * A RunRecorder on a store (a FakeRunRecordStore unless given) for tests, with what it tells others: the events pushed to
 * live streams, the runs whose end freed admission room, and how often the outbox was kicked.
 */
export function recorderOnFakes(store: RunRecordStore = new FakeRunRecordStore()) {
  const pushed: Array<{ runId: string; index: number; finished: boolean }> = [];
  const gone: string[] = [];
  const admissionKicks: string[] = [];
  let outboxKicks = 0;
  const channel = {
    recorded: (runId: string, item: { event_index: number }, finished: boolean) => pushed.push({ runId, index: item.event_index, finished }),
    gone: (runId: string) => gone.push(runId),
  } as unknown as RunEventChannel;
  const metrics = new RunMetrics({} as RunMetricsStore, new Registry());
  const admission = { kick: (userId: string) => admissionKicks.push(userId) } as unknown as RunAdmission;
  const outbox = { kick: () => outboxKicks++ } as unknown as OutboxRelay;
  const recorder = new RunRecorder(store, outbox, metrics, channel, admission);
  return { recorder, channel, pushed, gone, admissionKicks, outboxKicks: () => outboxKicks };
}

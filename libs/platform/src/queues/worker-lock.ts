import type { WorkerOptions } from 'bullmq';

/**
 * Lock and stall timing for the apps' queue workers. A worker renews its jobs'
 * locks every lockDuration / 2; when a process dies (kill -9, OOM), another
 * replica takes its jobs over after at most lockDuration + stalledInterval:
 * about 15 s, against 60 s with BullMQ's defaults (30 s + 30 s).
 */
export const WORKER_LOCK: Pick<WorkerOptions, 'lockDuration' | 'stalledInterval'> = {
  lockDuration: 10_000,
  stalledInterval: 5_000,
};

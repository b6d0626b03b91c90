import { Logger } from '@nestjs/common';
import { Queue } from 'bullmq';

/**
 * Runs `name` on `queue` every `everyMs`, once however many replicas call this at start: they upsert
 * the same BullMQ job scheduler, and an upsert with the same interval keeps the next run's time, so
 * replicas starting do not postpone it. Each job is taken by whichever replica's worker is free.
 */
export async function schedulePeriodicJob(queue: Queue, name: string, everyMs: number, logger: Logger): Promise<void> {
  try {
    await queue.upsertJobScheduler(name, { every: everyMs }, { name, opts: { removeOnComplete: { count: 10 }, removeOnFail: { count: 50 } } });
  } catch (error) {
    // The schedule lives in Redis: any replica that starts later registers it.
    logger.warn(`could not schedule ${name}: ${(error as Error).message}`);
  }
}

import { LRUCache } from 'lru-cache';
import { CronSchedule, parseCronSchedule } from './cron-schedule';

const MAX_ENTRIES = 10_000;

/**
 * Parsed schedules by expression and timezone, least recently used dropped first. A ticker computes a next time
 * per fire; parsing each time would build the value sets and an Intl formatter again. A CronSchedule is
 * immutable, so sharing one is safe.
 */
export class CronScheduleCache {
  private readonly schedules = new LRUCache<string, CronSchedule>({ max: MAX_ENTRIES });

  /** @throws CronExpressionError as parseCronSchedule; a refused expression is not kept. */
  get(expression: string, timezone: string | null): CronSchedule {
    const key = `${timezone ?? ''} ${expression}`;
    let schedule = this.schedules.get(key);
    if (!schedule) {
      schedule = parseCronSchedule(expression, timezone);
      this.schedules.set(key, schedule);
    }
    return schedule;
  }
}

import { CronSchedule, parseCronSchedule } from './cron-schedule';

const MAX_ENTRIES = 10_000;

/**
 * Parsed schedules by expression and timezone. Parsing builds croner objects and
 * Intl formatters and checks the expression fires again, which costs far more
 * than computing a next time; a ticker computes one per fire. A CronSchedule is
 * immutable, so sharing one is safe.
 */
export class CronScheduleCache {
  private readonly schedules = new Map<string, CronSchedule>();

  get(expression: string, timezone: string | null): CronSchedule {
    const key = `${timezone ?? ''} ${expression}`;
    let schedule = this.schedules.get(key);
    if (!schedule) {
      // Expressions in use are few; dropping them all when full keeps the bound without bookkeeping.
      if (this.schedules.size >= MAX_ENTRIES) this.schedules.clear();
      schedule = parseCronSchedule(expression, timezone);
      this.schedules.set(key, schedule);
    }
    return schedule;
  }
}

import { CronExpressionError } from './cron-schedule';
import { CronScheduleCache } from './cron-schedule-cache';

describe(CronScheduleCache.name, () => {
  const sut = () => new CronScheduleCache();

  it('parses an expression once per timezone', () => {
    const cache = sut();
    const utc = cache.get('*/2 * * * * ? *', null);
    expect(cache.get('*/2 * * * * ? *', null)).toBe(utc);
    const berlin = cache.get('*/2 * * * * ? *', 'Europe/Berlin');
    expect(berlin).not.toBe(utc);
    expect(berlin.timezone).toBe('Europe/Berlin');
  });

  it('refuses what parsing refuses, and keeps nothing for it', () => {
    const cache = sut();
    expect(() => cache.get('* * * * *', null)).toThrow(CronExpressionError);
    expect(() => cache.get('* * * * *', null)).toThrow(CronExpressionError);
  });
});

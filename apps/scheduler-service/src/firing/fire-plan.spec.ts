import { parseCronSchedule } from '../cron/cron-schedule';
import { DueSchedule, planFires } from './fire-plan';

describe(planFires.name, () => {
  const everyMinute = parseCronSchedule('0 * * * * ? *');
  const rules = { thresholdMs: 60_000, catchUpMaxFires: 100 };
  const at = (iso: string) => new Date(iso);
  const due = (
    nextRunAt: string,
    misfire: DueSchedule['misfire'],
    catchUpWindowSeconds: number | null = null,
    overlap: DueSchedule['overlap'] = 'allow',
  ): DueSchedule => ({ nextRunAt: at(nextRunAt), misfire, catchUpWindowSeconds, overlap });

  it('fires a fire taken early (lookahead) and moves on from its own time', () => {
    expect(planFires(due('2026-01-01T10:00:00Z', 'skip'), everyMinute, at('2026-01-01T09:59:59.500Z'), rules)).toEqual({
      fires: [at('2026-01-01T10:00:00Z')],
      next: at('2026-01-01T10:01:00Z'),
      skipped: 0,
    });
  });

  it('fires a fire late by less than the threshold whatever the policy', () => {
    for (const misfire of ['skip', 'fire_once', 'catch_up'] as const) {
      expect(planFires(due('2026-01-01T10:00:00Z', misfire, 3600), everyMinute, at('2026-01-01T10:00:59Z'), rules)).toEqual({
        fires: [at('2026-01-01T10:00:00Z')],
        next: at('2026-01-01T10:01:00Z'),
        skipped: 0,
      });
    }
  });

  const now = at('2026-01-01T10:05:30Z'); // five and a half minutes after the missed fire of 10:00

  it('skip: fires nothing for missed times and moves to the first fire after now', () => {
    expect(planFires(due('2026-01-01T10:00:00Z', 'skip'), everyMinute, now, rules)).toEqual({
      fires: [],
      next: at('2026-01-01T10:06:00Z'),
      skipped: 1,
    });
  });

  it('fire_once: fires the first missed time once', () => {
    expect(planFires(due('2026-01-01T10:00:00Z', 'fire_once'), everyMinute, now, rules)).toEqual({
      fires: [at('2026-01-01T10:00:00Z')],
      next: at('2026-01-01T10:06:00Z'),
      skipped: 0,
    });
  });

  it('catch_up: fires every missed time within the window, oldest first', () => {
    expect(planFires(due('2026-01-01T10:00:00Z', 'catch_up', 3600), everyMinute, now, rules)).toEqual({
      fires: ['10:00', '10:01', '10:02', '10:03', '10:04', '10:05'].map((t) => at(`2026-01-01T${t}:00Z`)),
      next: at('2026-01-01T10:06:00Z'),
      skipped: 0,
    });
  });

  it('catch_up: drops missed times older than the window', () => {
    expect(planFires(due('2026-01-01T10:00:00Z', 'catch_up', 150), everyMinute, now, rules)).toEqual({
      fires: [at('2026-01-01T10:03:00Z'), at('2026-01-01T10:04:00Z'), at('2026-01-01T10:05:00Z')], // the window starts at 10:03:00
      next: at('2026-01-01T10:06:00Z'),
      skipped: 1,
    });
  });

  it('catch_up: replays at most the cap, then moves on from now', () => {
    expect(planFires(due('2026-01-01T10:00:00Z', 'catch_up', 3600), everyMinute, now, { ...rules, catchUpMaxFires: 2 })).toEqual({
      fires: [at('2026-01-01T10:00:00Z'), at('2026-01-01T10:01:00Z')],
      next: at('2026-01-01T10:06:00Z'),
      skipped: 1,
    });
  });

  it('catch_up under overlap skip fires only the oldest missed time: the others would overlap its run', () => {
    expect(planFires(due('2026-01-01T10:00:00Z', 'catch_up', 3600, 'skip'), everyMinute, now, rules)).toEqual({
      fires: [at('2026-01-01T10:00:00Z')],
      next: at('2026-01-01T10:06:00Z'),
      skipped: 1,
    });
  });

  it('finishes a schedule whose expression has no fire after the due one', () => {
    const oneShot = parseCronSchedule('1 0 10 1 5 ? 2026');
    for (const misfire of ['skip', 'fire_once', 'catch_up'] as const) {
      const plan = planFires(due('2026-05-01T10:00:01Z', misfire, 3600), oneShot, at('2026-06-01T00:00:00Z'), rules);
      expect(plan.next).toBeNull();
    }
    expect(planFires(due('2026-05-01T10:00:01Z', 'fire_once'), oneShot, at('2026-06-01T00:00:00Z'), rules).fires).toEqual([
      at('2026-05-01T10:00:01Z'),
    ]);
  });
});

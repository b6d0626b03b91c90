import { MisfirePolicy, OverlapPolicy } from '@aas/contracts';
import { CronSchedule } from '../cron/cron-schedule';

/** A due schedule as the ticker sees it. */
export interface DueSchedule {
  nextRunAt: Date;
  misfire: MisfirePolicy;
  catchUpWindowSeconds: number | null;
  overlap: OverlapPolicy;
}

export interface MisfireRules {
  /** A fire taken later than this after its time is missed, and its schedule's misfire policy applies. */
  thresholdMs: number;
  /** The most missed fires one catch-up replays. */
  catchUpMaxFires: number;
}

/** What one tick does with a due schedule: the fire times to fire now, and where the schedule goes next. */
export interface FirePlan {
  fires: Date[];
  /** null: no further fire time, the schedule is finished. */
  next: Date | null;
  /** Missed fire times dropped by the misfire policy (`skip`, or beyond a catch-up's window or cap); at least 1 when any. */
  skipped: number;
}

/**
 * Decides a due schedule's fires. On time (taken up to the lookahead early, or
 * late by less than the threshold) it fires its due time. Missed by more:
 * - `skip` fires nothing;
 * - `fire_once` fires the first missed time once;
 * - `catch_up` fires each missed time within the window, oldest first, up to the cap;
 *   under `overlap: skip` only the oldest, since the others would start while its run is unfinished.
 * Either way the schedule then moves to its first fire after now, so a missed
 * window is decided once, never fire by fire.
 */
export function planFires(schedule: DueSchedule, cron: CronSchedule, now: Date, rules: MisfireRules): FirePlan {
  const due = schedule.nextRunAt;
  if (now.getTime() - due.getTime() <= rules.thresholdMs) {
    return { fires: [due], next: cron.next(due > now ? due : now), skipped: 0 };
  }
  switch (schedule.misfire) {
    case 'skip':
      return { fires: [], next: cron.next(now), skipped: 1 };
    case 'fire_once':
      return { fires: [due], next: cron.next(now), skipped: 0 };
    case 'catch_up':
      return catchUp(schedule, cron, now, rules.catchUpMaxFires);
  }
}

function catchUp(schedule: DueSchedule, cron: CronSchedule, now: Date, maxFires: number): FirePlan {
  const windowStart = now.getTime() - (schedule.catchUpWindowSeconds ?? 0) * 1000;
  const due = schedule.nextRunAt;
  const olderDropped = due.getTime() < windowStart;
  const fires: Date[] = [];
  let time: Date | null = olderDropped ? cron.next(new Date(windowStart - 1)) : due;
  const cap = schedule.overlap === 'skip' ? 1 : maxFires;
  while (time !== null && time <= now && fires.length < cap) {
    fires.push(time);
    time = cron.next(time);
  }
  const capped = time !== null && time <= now;
  return {
    fires,
    next: capped ? cron.next(now) : time,
    skipped: (olderDropped ? 1 : 0) + (capped ? 1 : 0),
  };
}

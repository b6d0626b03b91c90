import { ScheduleDto } from '@aas/contracts';
import { CronScheduleCache } from '../cron/cron-schedule-cache';
import { ScheduleEntity } from './schedule.entity';

/** How many next fire times `upcoming` lists (schedules and previews). */
export const UPCOMING = 5;

/** A schedule's next fire times from now, or why its expression cannot be evaluated. */
export interface ScheduleTimes {
  upcoming: Date[];
  error: string | null;
}

/** Never throws: a stored expression that no longer evaluates reads as finished, with the reason. */
export function scheduleTimes(crons: CronScheduleCache, schedule: ScheduleEntity, now = new Date()): ScheduleTimes {
  try {
    return { upcoming: crons.get(schedule.cron, schedule.timezone).upcoming(now, UPCOMING), error: null };
  } catch (error) {
    return { upcoming: [], error: notEvaluable(error) };
  }
}

/** last_error of a stored expression the parser now refuses. */
export function notEvaluable(error: unknown): string {
  return `the schedule's expression can no longer be evaluated: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * `next_run` and `upcoming` are computed from the expression at read time, so
 * they are always the true next fires; a schedule with none is `finished`, and
 * its `next_run` is 0.
 */
export function toScheduleDto(schedule: ScheduleEntity, times: ScheduleTimes): ScheduleDto {
  const upcoming = times.upcoming.map((d) => d.getTime());
  return {
    agent_id: schedule.agentId,
    cron: schedule.cron,
    next_run: upcoming[0] ?? 0,
    paused: schedule.paused,
    consecutive_failures: schedule.consecutiveFailures,
    auto_paused: schedule.autoPaused,
    timezone: schedule.timezone,
    overlap: schedule.overlap,
    upcoming,
    finished: upcoming.length === 0,
    misfire: schedule.misfire,
    catch_up_window: schedule.catchUpWindowSeconds,
    last_error: times.error ?? schedule.lastError,
    last_error_at: schedule.lastErrorAt?.toISOString() ?? null,
  };
}

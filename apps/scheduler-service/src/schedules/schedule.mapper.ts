import { ScheduleDto } from '@aas/contracts';
import { parseCronSchedule } from '../cron/cron-schedule';
import { ScheduleEntity } from './schedule.entity';

/** How many next fire times `upcoming` lists (schedules and previews). */
export const UPCOMING = 5;

/** `next_run` and `upcoming` are computed from the expression at read time, so they are always the true next fires. */
export function toScheduleDto(schedule: ScheduleEntity, now = new Date()): ScheduleDto {
  const upcoming = parseCronSchedule(schedule.cron, schedule.timezone).upcoming(now, UPCOMING).map((d) => d.getTime());
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
  };
}

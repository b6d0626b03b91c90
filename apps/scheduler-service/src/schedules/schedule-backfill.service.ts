import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  BackfillScheduleMessage,
  BackfillScheduleResponse,
  RunsPatterns,
  ScheduledRunOutcome,
  } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { QuotaExceededError, ValidationFailedError } from '@aas/problem-details';
import { RunStartAllowance } from '../allowance/run-start-allowance';
import { SchedulerEnv } from '../config/scheduler.env';
import { CronSchedule } from '../cron/cron-schedule';
import { EventLoopSlices } from '../cron/map-in-slices';
import { CronScheduleCache } from '../cron/cron-schedule-cache';
import { ScheduleEntity } from './schedule.entity';
import { notEvaluable } from './schedule.mapper';
import { SchedulesService } from './schedules.service';

/**
 * Starts one run per fire time of the schedule in a past range. Each run is
 * keyed by its fire time exactly as the fire itself would be, so a repeated or
 * overlapping backfill, or a fire the scheduler made itself, never makes a
 * second run for the same time. Paused schedules can be backfilled; the overlap
 * rule does not apply (the caller asked for these runs). Its runs count against
 * the owner's allowance of triggered runs, all of them or none (a 429).
 */
@Injectable()
export class ScheduleBackfill {
  constructor(
    private readonly schedules: SchedulesService,
    private readonly crons: CronScheduleCache,
    private readonly services: ServiceClient,
    private readonly config: ConfigService<SchedulerEnv, true>,
    private readonly allowance: RunStartAllowance,
  ) {}

  async backfill(message: BackfillScheduleMessage): Promise<BackfillScheduleResponse> {
    const schedule = await this.schedules.existing(message.user_id, message.agent_id);
    const [from, to] = [new Date(message.from), new Date(message.to)];
    if (from > to) throw invalid('from', 'from is after to');
    if (to.getTime() > Date.now()) throw invalid('to', 'to is in the future: a backfill starts the runs of past fire times only');
    const max = this.config.get('SCHEDULE_BACKFILL_MAX_RUNS', { infer: true });
    const times = await fireTimesBetween(this.evaluated(schedule), from, to, max + 1);
    if (times.length > max) {
      throw invalid('to', `the range holds more than ${max} fire times, the most one backfill starts: narrow it`);
    }
    if (times.length === 0) return { runs: [] };
    await this.allowance.takeAll(message.user_id, times.length);
    const { outcomes } = await this.services.request(RunsPatterns.StartScheduledRuns, {
      fires: times.map((time) => ({
        user_id: message.user_id,
        agent_id: message.agent_id,
        fire_time: time.toISOString(),
        ...(schedule.agentGeneration === null ? {} : { agent_generation: Number(schedule.agentGeneration) }),
      })),
    });
    const refused = outcomes.find((o) => 'refused' in o);
    if (refused?.refused.quota === 'waiting_runs_per_user') throw partlyStarted(outcomes, refused.refused.detail, refused.refused.limit!);
    // Every fire of one agent is refused for the same reason (not deployed, gone): the request is refused.
    if (refused) throw new ValidationFailedError(refused.refused.detail || refused.refused.title);
    return { runs: outcomes.map((o) => ({ fire_time: o.fire_time, run_id: (o as Extract<ScheduledRunOutcome, { run_id: string }>).run_id })) };
  }

  private evaluated(schedule: ScheduleEntity): CronSchedule {
    try {
      return this.crons.get(schedule.cron, schedule.timezone);
    } catch (error) {
      throw invalid('cron', notEvaluable(error));
    }
  }
}

/**
 * The owner had the most runs waiting: the first fire times started, the others did not. Backfilling the
 * same range later answers the started ones with their runs and starts the rest.
 */
function partlyStarted(outcomes: ScheduledRunOutcome[], detail: string, limit: number): QuotaExceededError {
  const started = outcomes.filter((o) => 'run_id' in o).length;
  return new QuotaExceededError(
    `${started} of the ${outcomes.length} fire times started: ${detail}. Backfill the same range again later to start the rest`,
    'waiting_runs_per_user',
    limit,
  );
}

/** Up to `limit` fire times in [from, to], oldest first, yielding to the event loop between slices. */
async function fireTimesBetween(cron: CronSchedule, from: Date, to: Date, limit: number): Promise<Date[]> {
  const slices = new EventLoopSlices();
  const times: Date[] = [];
  for (let time = cron.next(new Date(from.getTime() - 1)); time !== null && time <= to && times.length < limit; time = cron.next(time)) {
    times.push(time);
    await slices.next();
  }
  return times;
}

function invalid(field: string, message: string): ValidationFailedError {
  return new ValidationFailedError(message, [{ field, message }]);
}

import { Injectable } from '@nestjs/common';
import {
  OwnedAgent,
  CATCH_UP_WINDOW_DEFAULT_SECONDS,
  DEFAULT_MISFIRE_POLICY,
  PutScheduleMessage,
  SchedulePreviewResponse,
  ScheduleDto,
  SuccessResponse,
} from '@aas/contracts';
import { isUUID } from 'class-validator';
import { ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { OwnedAgents } from '../agents/owned-agents';
import { CronExpressionError, CronSchedule, parseCronSchedule } from '../cron/cron-schedule';
import { CronScheduleCache } from '../cron/cron-schedule-cache';
import { mapInSlices } from '../cron/map-in-slices';
import { ScheduleEntity } from './schedule.entity';
import { UPCOMING, scheduleTimes, toScheduleDto } from './schedule.mapper';
import { ScheduleStore } from './schedule.store';

const OK: SuccessResponse = { success: true, error: null };

@Injectable()
export class SchedulesService {
  constructor(
    private readonly store: ScheduleStore,
    private readonly crons: CronScheduleCache,
    private readonly agents: OwnedAgents,
  ) {}

  async get(userId: string, agentId: string): Promise<ScheduleDto | null> {
    const schedule = await this.owned(userId, agentId);
    return schedule ? toScheduleDto(schedule, scheduleTimes(this.crons, schedule)) : null;
  }

  /** Parsed expressions come from the cache, and the list yields between slices: many schedules never block the loop. */
  async list(userId: string): Promise<ScheduleDto[]> {
    const schedules = await this.ofExistingAgents(userId, await this.store.listOwned(userId));
    const now = new Date();
    return mapInSlices(schedules, (s) => toScheduleDto(s, scheduleTimes(this.crons, s, now)));
  }

  /**
   * The next fire times of an expression, for the console's cron editor; a 400 naming why when it is refused.
   * Parsed outside the cache: what a user types must not push out the expressions of stored schedules.
   */
  preview(cron: string, timezone: string | undefined, now = new Date()): SchedulePreviewResponse {
    const upcoming = refusalAs400(() => parseCronSchedule(cron, timezone ?? null)).upcoming(now, UPCOMING);
    if (upcoming.length === 0) throw neverFiresAgain(cron);
    return { upcoming: upcoming.map((d) => d.getTime()) };
  }

  /** Sets or replaces the agent's one schedule; it starts active with a clean failure count. */

  async put(message: PutScheduleMessage): Promise<SuccessResponse> {
    const agent = await this.agent(message.user_id, message.agent_id);
    if (agent.deployment_state !== 'deployed') {
      throw new ValidationFailedError('The agent is not deployed: complete a build run before scheduling it');
    }
    const misfire = message.misfire ?? DEFAULT_MISFIRE_POLICY;
    if (message.catch_up_window !== undefined && misfire !== 'catch_up') {
      throw new ValidationFailedError('catch_up_window applies only with misfire catch_up', [
        { field: 'catch_up_window', message: 'catch_up_window applies only with misfire catch_up' },
      ]);
    }
    const timezone = message.timezone ?? null;
    const next = this.parsed(message.cron, timezone).next(new Date());
    if (next === null) throw neverFiresAgain(message.cron);
    await this.store.upsert({
      agentId: agent.agent_id,
      agentGeneration: agent.generation,
      userId: message.user_id,
      cron: message.cron.trim(),
      timezone,
      overlap: message.overlap ?? 'skip',
      misfire,
      catchUpWindowSeconds: misfire === 'catch_up' ? (message.catch_up_window ?? CATCH_UP_WINDOW_DEFAULT_SECONDS) : null,
      nextRunAt: next,
    });
    return OK;
  }

  async delete(userId: string, agentId: string): Promise<SuccessResponse> {
    await this.existing(userId, agentId);
    await this.store.delete(userId, agentId);
    return OK;
  }

  async pause(userId: string, agentId: string): Promise<SuccessResponse> {
    await this.existing(userId, agentId);
    await this.store.pause(userId, agentId);
    return OK;
  }

  /**
   * Resuming clears auto-pause and the failure count; the next fire is the next one from now (missed ones are
   * not replayed, whatever the misfire policy). A schedule with no further fire stays finished.
   */
  async resume(userId: string, agentId: string): Promise<SuccessResponse> {
    const schedule = await this.existing(userId, agentId);
    const times = scheduleTimes(this.crons, schedule);
    await this.store.resume(userId, agentId, times.upcoming[0] ?? null, times.error);
    return OK;
  }

  /** The caller's schedule of the caller's agent, or a 404. */
  async existing(userId: string, agentId: string): Promise<ScheduleEntity> {
    const schedule = await this.owned(userId, agentId);
    if (!schedule) throw new ResourceNotFoundError('Schedule of agent', agentId);
    return schedule;
  }

  /**
   * The schedule of the caller's agent (a 404 when the agent is not the caller's, or deleted); agents-service is
   * asked while the schedule is read. A schedule of an earlier agent with the same id (another generation, whose
   * cleanup has not run yet) is not this agent's.
   */
  private async owned(userId: string, agentId: string): Promise<ScheduleEntity | null> {
    // A path id that is no uuid names no agent (and would not be a valid query parameter).
    if (!isUUID(agentId)) throw new ResourceNotFoundError('Agent', agentId);
    const [agent, schedule] = await Promise.all([this.agent(userId, agentId), this.store.findOwned(userId, agentId)]);
    if (!schedule || (schedule.agentGeneration !== null && Number(schedule.agentGeneration) !== agent.generation)) return null;
    return schedule;
  }

  /** Drops the schedules of agents that are gone (deleted, their cleanup not run yet) or of an earlier generation. */
  private async ofExistingAgents(userId: string, schedules: ScheduleEntity[]): Promise<ScheduleEntity[]> {
    const generations = await this.agents.generationsOf(userId, schedules.map((s) => s.agentId));
    return schedules.filter((s) => {
      const generation = generations.get(s.agentId);
      return generation !== undefined && (s.agentGeneration === null || Number(s.agentGeneration) === generation);
    });
  }

  /** The caller's agent (a 404 otherwise), asked of agents-service, which owns agents. */
  agent(userId: string, agentId: string): Promise<OwnedAgent> {
    return this.agents.get(userId, agentId);
  }

  /** An expression and timezone from a request, or a 400 that says what is wrong with them. */
  private parsed(cron: string, timezone: string | null): CronSchedule {
    return refusalAs400(() => this.crons.get(cron, timezone));
  }
}

function neverFiresAgain(cron: string): ValidationFailedError {
  const why = `cron expression '${cron.trim()}' never fires again`;
  return new ValidationFailedError(why, [{ field: 'cron', message: why }]);
}

function refusalAs400(parse: () => CronSchedule): CronSchedule {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof CronExpressionError)) throw error;
    const field = /timezone/i.test(error.message) ? 'timezone' : 'cron';
    throw new ValidationFailedError(error.message, [{ field, message: error.message }]);
  }
}

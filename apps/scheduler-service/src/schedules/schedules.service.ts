import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AgentContext, AgentsPatterns, PutScheduleMessage, ScheduleDto, SchedulePreviewResponse, SuccessResponse } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { DataSource } from 'typeorm';
import { CronExpressionError, parseCronSchedule } from '../cron/cron-schedule';
import { ScheduleEntity } from './schedule.entity';
import { UPCOMING, toScheduleDto } from './schedule.mapper';

@Injectable()
export class SchedulesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly services: ServiceClient,
  ) {}

  async get(userId: string, agentId: string): Promise<ScheduleDto | null> {
    await this.agent(userId, agentId);
    const schedule = await this.dataSource.manager.findOneBy(ScheduleEntity, { agentId, userId });
    return schedule ? toScheduleDto(schedule) : null;
  }

  async list(userId: string): Promise<ScheduleDto[]> {
    const schedules = await this.dataSource.manager.find(ScheduleEntity, { where: { userId }, order: { createdAt: 'ASC' } });
    const now = new Date();
    return schedules.map((s) => toScheduleDto(s, now));
  }

  /** Sets or replaces the agent's one schedule; it starts active with a clean failure count. */
  /** The next fire times of an expression, for the console's cron editor; a 400 naming why when it is refused. */
  preview(cron: string, timezone: string | undefined, now = new Date()): SchedulePreviewResponse {
    return { upcoming: parsed(cron, timezone ?? null).upcoming(now, UPCOMING).map((d) => d.getTime()) };
  }

  async put(message: PutScheduleMessage): Promise<SuccessResponse> {
    const agent = await this.agent(message.user_id, message.agent_id);
    if (agent.deployment_state !== 'deployed') {
      throw new ValidationFailedError('The agent is not deployed: complete a build run before scheduling it');
    }
    const timezone = message.timezone ?? null;
    const next = parsed(message.cron, timezone).next(new Date());
    const now = new Date();
    await this.dataSource.query(
      `INSERT INTO schedules (agent_id, user_id, cron, timezone, overlap, next_run_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
       ON CONFLICT (agent_id) DO UPDATE SET
         cron = $3, timezone = $4, overlap = $5, next_run_at = $6, updated_at = $7,
         paused = false, auto_paused = false, consecutive_failures = 0`,
      [agent.agent_id, message.user_id, message.cron.trim(), timezone, message.overlap ?? 'skip', next, now],
    );
    return { success: true, error: null };
  }

  async delete(userId: string, agentId: string): Promise<SuccessResponse> {
    await this.existing(userId, agentId);
    await this.dataSource.manager.delete(ScheduleEntity, { agentId, userId });
    return { success: true, error: null };
  }

  async pause(userId: string, agentId: string): Promise<SuccessResponse> {
    await this.existing(userId, agentId);
    await this.dataSource.manager.update(ScheduleEntity, { agentId, userId }, { paused: true, updatedAt: new Date() });
    return { success: true, error: null };
  }

  /** Resuming clears auto-pause and the failure count; the next fire is the next one from now (missed ones are not replayed). */
  async resume(userId: string, agentId: string): Promise<SuccessResponse> {
    const schedule = await this.existing(userId, agentId);
    await this.dataSource.manager.update(
      ScheduleEntity,
      { agentId, userId },
      {
        paused: false,
        autoPaused: false,
        consecutiveFailures: 0,
        nextRunAt: parseCronSchedule(schedule.cron, schedule.timezone).next(new Date()),
        updatedAt: new Date(),
      },
    );
    return { success: true, error: null };
  }

  private async existing(userId: string, agentId: string): Promise<ScheduleEntity> {
    await this.agent(userId, agentId);
    const schedule = await this.dataSource.manager.findOneBy(ScheduleEntity, { agentId, userId });
    if (!schedule) throw new ResourceNotFoundError('Schedule of agent', agentId);
    return schedule;
  }

  /** The caller's agent (a 404 otherwise), asked of agents-service, which owns agents. */
  private agent(userId: string, agentId: string): Promise<AgentContext> {
    return this.services.request<AgentContext>(AgentsPatterns.GetAgentForRun, { user_id: userId, agent_id: agentId });
  }
}

function parsed(cron: string, timezone: string | null) {
  try {
    return parseCronSchedule(cron, timezone);
  } catch (error) {
    if (!(error instanceof CronExpressionError)) throw error;
    const field = /timezone/i.test(error.message) ? 'timezone' : 'cron';
    throw new ValidationFailedError(error.message, [{ field, message: error.message }]);
  }
}

import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { EventNames, ScheduleFireEvent } from '@aas/contracts';
import { OutboxRelay, recordEvents } from '@aas/platform';
import { DataSource, EntityManager } from 'typeorm';
import { SchedulerEnv } from '../config/scheduler.env';
import { CronScheduleCache } from '../cron/cron-schedule-cache';
import { ScheduleEntity } from '../schedules/schedule.entity';

const BATCH = 500;

/**
 * Every replica ticks; due schedules are locked with SKIP LOCKED, so each due
 * fire is taken by exactly one replica, which advances the schedule and records
 * the fire in the same transaction. Fires are taken up to SCHEDULER_LOOKAHEAD_MS
 * early and started at their time by the fire worker. The next fire is computed
 * from now, so after downtime a missed window fires once, not once per missed time.
 */
@Injectable()
export class ScheduleTicker implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ScheduleTicker.name);
  private readonly crons = new CronScheduleCache();
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRelay,
    private readonly config: ConfigService<SchedulerEnv, true>,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => this.tick(), this.config.get('SCHEDULER_TICK_MS', { infer: true }));
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
  }

  tick(): void {
    if (this.ticking) return;
    this.ticking = this.fireDue()
      .then((fired) => {
        if (fired > 0) this.outbox.kick();
      })
      .catch((error: Error) => this.logger.warn(`schedule tick failed: ${error.message}`))
      .finally(() => (this.ticking = undefined));
  }

  private fireDue(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const due = await manager
        .createQueryBuilder(ScheduleEntity, 's')
        .where('NOT s.paused AND s.next_run_at <= :horizon', {
          horizon: new Date(Date.now() + this.config.get('SCHEDULER_LOOKAHEAD_MS', { infer: true })),
        })
        .orderBy('s.next_run_at')
        .limit(BATCH)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      if (due.length === 0) return 0;
      const now = new Date();
      const fires = due.map((schedule): ScheduleFireEvent => ({
        agent_id: schedule.agentId,
        user_id: schedule.userId,
        fire_time: schedule.nextRunAt!.toISOString(),
      }));
      const nextRuns = due.map((schedule) => {
        const fireTime = schedule.nextRunAt!;
        return this.crons.get(schedule.cron, schedule.timezone).next(now > fireTime ? now : fireTime);
      });
      await advance(manager, due, nextRuns);
      await recordFires(manager, fires);
      return due.length;
    });
  }
}

/** Moves each taken schedule to its next fire time (null: it never fires again), in one statement. */
async function advance(manager: EntityManager, schedules: ScheduleEntity[], nextRuns: Array<Date | null>): Promise<void> {
  await manager.query(
    `UPDATE schedules s SET next_run_at = v.next_run_at
       FROM unnest($1::uuid[], $2::timestamptz[]) AS v(agent_id, next_run_at)
      WHERE s.agent_id = v.agent_id`,
    [schedules.map((s) => s.agentId), nextRuns.map((d) => d?.toISOString() ?? null)],
  );
}

/** Published if and only if the tick commits. */
async function recordFires(manager: EntityManager, fires: ScheduleFireEvent[]): Promise<void> {
  await recordEvents(manager, EventNames.ScheduleFire, fires);
}

import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ScheduleFireEvent } from '@aas/contracts';
import { SchedulerEnv } from '../config/scheduler.env';
import { CronScheduleCache } from '../cron/cron-schedule-cache';
import { mapInSlices } from '../cron/map-in-slices';
import { ScheduleEntity } from '../schedules/schedule.entity';
import { notEvaluable } from '../schedules/schedule.mapper';
import { EvaluationError, ScheduleStore, ScheduleTickTransaction } from '../schedules/schedule.store';
import { FireMetrics } from './fire-metrics';
import { FirePlan, MisfireRules, planFires } from './fire-plan';

const BATCH = 500;

/** A due schedule's plan, or why its expression could not be evaluated (it then fires its due time and finishes). */
type TickDecision = { schedule: ScheduleEntity; plan: FirePlan; error?: string };

/** What a committed tick did. */
export interface TickResult {
  fired: number;
  skipped: number;
  evaluationErrors: EvaluationError[];
}

/**
 * Every replica ticks; due schedules are locked with SKIP LOCKED, so each due
 * fire is taken by exactly one replica, which advances the schedule and records
 * its fires in the same transaction. Fires are taken up to SCHEDULER_LOOKAHEAD_MS
 * early and started at their time by the fire worker. What a late fire does is
 * its schedule's misfire policy (fire-plan.ts). Each schedule is decided on its
 * own: one that cannot be evaluated is finished with its error recorded and never
 * holds up, or rolls back, the others of its batch.
 */
@Injectable()
export class ScheduleTicker implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ScheduleTicker.name);
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;

  constructor(
    private readonly store: ScheduleStore,
    private readonly crons: CronScheduleCache,
    private readonly metrics: FireMetrics,
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
      .then((result) => this.report(result))
      .catch((error: Error) => this.logger.warn(`schedule tick failed: ${error.message}`))
      .finally(() => (this.ticking = undefined));
  }

  /** Takes one batch of due schedules and commits what it decided. */
  fireDue(): Promise<TickResult> {
    return this.store.tick(async (tx) => {
      const horizon = new Date(Date.now() + this.config.get('SCHEDULER_LOOKAHEAD_MS', { infer: true }));
      const due = await tx.lockDue(horizon, BATCH);
      if (due.length === 0) return { fired: 0, skipped: 0, evaluationErrors: [] };
      const now = new Date();
      const rules = this.misfireRules();
      const decisions = await mapInSlices(due, (schedule) => this.decide(schedule, now, rules));
      return this.apply(tx, decisions);
    });
  }

  private decide(schedule: ScheduleEntity, now: Date, rules: MisfireRules): TickDecision {
    const due = {
      nextRunAt: schedule.nextRunAt!,
      misfire: schedule.misfire,
      catchUpWindowSeconds: schedule.catchUpWindowSeconds,
      overlap: schedule.overlap,
    };
    try {
      return { schedule, plan: planFires(due, this.crons.get(schedule.cron, schedule.timezone), now, rules) };
    } catch (error) {
      // The due time was computed when the expression still evaluated: it fires, then the schedule stops.
      return { schedule, plan: { fires: [due.nextRunAt], next: null, skipped: 0 }, error: notEvaluable(error) };
    }
  }

  private async apply(tx: ScheduleTickTransaction, decisions: TickDecision[]): Promise<TickResult> {
    const fires = decisions.flatMap(({ schedule, plan }) =>
      plan.fires.map(
        (time): ScheduleFireEvent => ({
          agent_id: schedule.agentId,
          user_id: schedule.userId,
          fire_time: time.toISOString(),
          agent_generation: schedule.agentGeneration === null ? null : Number(schedule.agentGeneration),
        }),
      ),
    );
    const errors = decisions.filter((d) => d.error !== undefined).map((d) => ({ agentId: d.schedule.agentId, error: d.error! }));
    await tx.advance(decisions.map((d) => ({ agentId: d.schedule.agentId, next: d.plan.next })));
    await tx.recordEvaluationErrors(errors);
    await tx.recordFires(fires);
    return { fired: fires.length, skipped: decisions.reduce((n, d) => n + d.plan.skipped, 0), evaluationErrors: errors };
  }

  private report({ skipped, evaluationErrors }: TickResult): void {
    for (const error of evaluationErrors) {
      this.logger.warn({ agent_id: error.agentId, error: error.error }, 'schedule finished: its expression cannot be evaluated');
    }
    this.metrics.evaluationFailed(evaluationErrors.length);
    this.metrics.count('skipped_misfire', skipped);
  }

  private misfireRules(): MisfireRules {
    return {
      thresholdMs: this.config.get('SCHEDULER_MISFIRE_THRESHOLD_MS', { infer: true }),
      catchUpMaxFires: this.config.get('SCHEDULER_CATCH_UP_MAX_FIRES', { infer: true }),
    };
  }
}

import { Injectable } from '@nestjs/common';
import {
  RunsPatterns,
  ScheduleFireEvent,
  ScheduledRunOutcome,
  StartScheduledRunMessage,
  } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { RemoteProblemError } from '@aas/problem-details';
import { ScheduleEntity } from '../schedules/schedule.entity';
import { ScheduleStore } from '../schedules/schedule.store';
import { FireMetrics } from './fire-metrics';
import { ScheduleFailures } from './schedule-failures';

/**
 * Starts the runs of fires due together, with one request to runs-service, which
 * keys each run by its fire time: fires retried or handled twice still make one
 * run each. Schedules are read at the fire time, so one paused or deleted while
 * its fire waited fires nothing.
 */
@Injectable()
export class ScheduledRunStarter {
  constructor(
    private readonly store: ScheduleStore,
    private readonly services: ServiceClient,
    private readonly failures: ScheduleFailures,
    private readonly metrics: FireMetrics,
  ) {}

  async start(fires: ScheduleFireEvent[]): Promise<void> {
    const found = await this.store.findByAgents(fires.map((f) => f.agent_id));
    const schedules = new Map(found.map((s) => [s.agentId, s]));
    // A fire of a deleted agent's schedule, replaced since by a new agent's with the same id, counts as deleted.
    const current = fires.filter((f) => schedules.has(f.agent_id) && sameGeneration(f, schedules.get(f.agent_id)!));
    const active = current.filter((f) => !schedules.get(f.agent_id)!.paused);
    const due = await this.withoutOverlaps(active, schedules);
    const { outcomes, acceptedAt } = await this.startRuns(due, schedules);
    // Counted once the whole batch is handled: a batch that fails, even after runs-service answered, fails
    // its jobs (counted by the processor as retried, or failed after the last attempt) and is counted again when retried, never also as started.
    const deleted = fires.length - current.length;
    this.metrics.count('skipped_deleted', deleted);
    this.metrics.count('skipped_paused', fires.length - active.length - deleted);
    this.metrics.count('skipped_overlap', active.length - due.length);
    this.metrics.started(outcomes.filter(isStarted).map((o) => o.fire_time), acceptedAt);
    this.metrics.count('refused', outcomes.filter((o) => !isStarted(o)).length);
  }

  /** Asks runs-service for the runs of the due fires (stored when it answers, at `acceptedAt`) and updates their schedules. */
  private async startRuns(due: ScheduleFireEvent[], schedules: Map<string, ScheduleEntity>): Promise<{ outcomes: ScheduledRunOutcome[]; acceptedAt: number }> {
    if (due.length === 0) return { outcomes: [], acceptedAt: Date.now() };
    const { outcomes } = await this.services.request(RunsPatterns.StartScheduledRuns, {
      fires: due.map((fire) => toStartMessage(fire, schedules.get(fire.agent_id)!)),
    });
    const acceptedAt = Date.now();
    await this.store.recordActiveRuns(outcomes.filter(isStarted).map((o) => ({ agentId: o.agent_id, runId: o.run_id })));
    // A refusal (agent not deployed, deleted, …) counts as a failure of that schedule only.
    await this.failures.recordFailedFires(outcomes.filter(isRefused).map((o) => ({ agentId: o.agent_id, error: refusalText(o) })));
    return { outcomes, acceptedAt };
  }

  /** Drops the fires of `skip` schedules whose previous scheduled run is still going. */
  private async withoutOverlaps(fires: ScheduleFireEvent[], schedules: Map<string, ScheduleEntity>): Promise<ScheduleFireEvent[]> {
    const overlapping = await Promise.all(fires.map((fire) => this.previousRunUnfinished(schedules.get(fire.agent_id)!)));
    return fires.filter((_, i) => !overlapping[i]);
  }

  /**
   * The schedule forgets its run when the run's end event arrives, so no recorded
   * run means the last one finished. A recorded run may have finished without the
   * event having arrived yet: runs-service, which owns runs, has the last word.
   */
  private async previousRunUnfinished(schedule: ScheduleEntity): Promise<boolean> {
    if (schedule.overlap !== 'skip' || !schedule.activeRunId) return false;
    try {
      const { run } = await this.services.request(RunsPatterns.GetRun, {
        user_id: schedule.userId,
        agent_id: schedule.agentId,
        run_id: schedule.activeRunId,
      });
      return !run.is_finished;
    } catch (error) {
      if (error instanceof RemoteProblemError && error.problem.status === 404) return false;
      throw error;
    }
  }
}

function isStarted(outcome: ScheduledRunOutcome): outcome is Extract<ScheduledRunOutcome, { run_id: string }> {
  return 'run_id' in outcome;
}

function isRefused(outcome: ScheduledRunOutcome): outcome is Extract<ScheduledRunOutcome, { refused: unknown }> {
  return 'refused' in outcome;
}

function refusalText(outcome: Extract<ScheduledRunOutcome, { refused: unknown }>): string {
  return `runs-service refused the run of the fire at ${outcome.fire_time}: ${outcome.refused.detail || outcome.refused.title}`;
}

/** Only the fields runs-service takes: a job written by another version may carry more. */
function toStartMessage(fire: ScheduleFireEvent, schedule: ScheduleEntity): StartScheduledRunMessage {
  const message: StartScheduledRunMessage = { user_id: fire.user_id, agent_id: fire.agent_id, fire_time: fire.fire_time };
  if (schedule.agentGeneration !== null) message.agent_generation = Number(schedule.agentGeneration);
  return message;
}

/** A fire recorded before generations existed has none, and is taken as the schedule's. */
function sameGeneration(fire: ScheduleFireEvent, schedule: ScheduleEntity): boolean {
  const fired = fire.agent_generation ?? null;
  return fired === null || schedule.agentGeneration === null || Number(schedule.agentGeneration) === fired;
}

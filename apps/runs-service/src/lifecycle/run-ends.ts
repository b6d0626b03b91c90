import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { EventNames, RunEndEffects, RunInstructionsEvent, RunLifecycleEvent, RunProgressEvent } from '@aas/contracts';
import { Transactions, afterCommit } from '@aas/platform';
import { RunAdmission } from '../admission/run-admission.service';
import { RunsEnv } from '../config/runs.env';
import { RunEndEffectsApplier } from './run-end-effects';
import { RunEventChannel } from './run-event-channel';
import { RunMetrics } from './run-metrics';
import { RunChange, RunRecordStore } from './run-record.store';
import { agentNameEvent, instructionsEvent } from './run-change';

/** How often every replica looks for ends left aside (a failed try come due, a dead process's lease passed). */
export const RUN_END_SWEEP_MS = 1000;
/** After a failed try of an end's effects, when the sweep tries again. */
const RETRY_AFTER_FAILURE_MS = 2000;
const SWEEP_BATCH = 100;
/** Past the drain deadline, how long an end's effects are waited for before the end is left to another replica. */
const HURRIED_EFFECTS_MS = 2000;

/**
 * Makes runs' ends visible only once their effects on other services are committed (docs/architecture.md,
 * "How a run's end becomes visible"). A run's end is first kept aside (RunRecorder; the run still reads
 * unfinished), then its effects are applied by request (RunEndEffectsApplier), then the end is written
 * into the run with its lifecycle events, flagged `effects_applied`, in one transaction (`commitEnd`),
 * and pushed to live streams. An end whose effects fail is tried again by the sweep; one still failing
 * after RUN_END_EFFECTS_TIMEOUT_MS is made visible without them, and the consumers of its events apply
 * them as they always could. Every step is idempotent, so two processes finishing one end is harmless.
 */
@Injectable()
export class RunEnds implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunEnds.name);
  private readonly finishing = new Map<string, Promise<void>>();
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  private stopped = false;
  private hurried = false;

  constructor(
    private readonly store: RunRecordStore,
    private readonly effects: RunEndEffectsApplier,
    private readonly transactions: Transactions,
    private readonly metrics: RunMetrics,
    private readonly channel: RunEventChannel,
    private readonly admission: RunAdmission,
    private readonly config: ConfigService<RunsEnv, true>,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.sweep(), RUN_END_SWEEP_MS);
    this.timer.unref();
    this.sweep();
  }

  /**
   * The drain deadline passed and the runs still executing end now: their ends wait for their effects
   * at most HURRIED_EFFECTS_MS (the other services may be stopping too), then are left aside with their
   * lease given up, for any replica's sweep (a restarted one's at once).
   */
  hurry(): void {
    this.hurried = true;
  }

  /**
   * Stops sweeping. Ends being finished here are not waited for: one may wait RPC_TIMEOUT_MS for a
   * service that is stopping too, and an end left aside is finished by another replica's sweep once
   * its lease passes (every step is idempotent).
   */
  beforeApplicationShutdown(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** Until when a process that keeps an end aside holds it: its two requests' longest wait, and a margin. */
  leaseUntil(): Date {
    return new Date(Date.now() + 2 * this.config.get('RPC_TIMEOUT_MS', { infer: true }) + 5000);
  }

  /**
   * Applies the effects of the run's end kept aside, then makes it visible; settles when it is visible,
   * or when it was left to the sweep (its effects failed). One at a time per run in this process.
   */
  finish(runId: string): Promise<void> {
    const running = this.finishing.get(runId);
    if (running) return running;
    const finishing = this.finishOnce(runId)
      .catch((error: Error) => this.logger.warn({ run_id: runId, err: error }, `finishing the end of run ${runId} failed; the sweep retries`))
      .finally(() => this.finishing.delete(runId));
    this.finishing.set(runId, finishing);
    return finishing;
  }

  private async finishOnce(runId: string): Promise<void> {
    const pending = await this.store.pendingEnd(runId);
    if (!pending) return;
    let flags: object = { effects_applied: true };
    try {
      const applying = this.effects.apply(await this.effectsOf(pending.change));
      await (this.hurried ? withinMs(applying, HURRIED_EFFECTS_MS) : applying);
    } catch (error) {
      if (this.hurried) {
        this.logger.warn({ run_id: runId, err: error }, `run ${runId}'s end is left to another replica: this one is stopping`);
        await this.store.postponeEnd(runId, new Date());
        return;
      }
      const timeout = this.config.get('RUN_END_EFFECTS_TIMEOUT_MS', { infer: true });
      if (Date.now() - pending.since.getTime() < timeout) {
        this.logger.warn({ run_id: runId, err: error }, `the effects of run ${runId}'s end could not be applied; retrying in ${RETRY_AFTER_FAILURE_MS} ms`);
        await this.store.postponeEnd(runId, new Date(Date.now() + RETRY_AFTER_FAILURE_MS));
        return;
      }
      this.logger.error({ run_id: runId, err: error }, `run ${runId}'s end is made visible without its effects (RUN_END_EFFECTS_TIMEOUT_MS passed); its events carry them`);
      flags = {};
    }
    await this.transactions.run(async (tx) => {
      const change = await this.store.commitEnd(tx, runId, flags);
      if (change) afterCommit(tx, () => this.published(change));
    });
  }

  /** Once the end is committed: the streams end, the run is counted, and its room goes to the next waiting run. */
  private published(change: RunChange): void {
    const { run, event } = change;
    this.channel.recorded(run.id, { event_index: event.index, recorded_at: event.at.toISOString(), event: event.body }, true);
    this.metrics.finished(run.status);
    // The run no longer counts towards its user's and agent's limits: the next waiting one may go.
    this.admission.kick(run.userId);
  }

  /** The end's lifecycle and progress events as recorded aside, and the last instructions and name the run wrote. */
  private async effectsOf(change: RunChange): Promise<RunEndEffects> {
    const payloadOf = (name: string) => change.outbox.find((w) => w.event === name)?.payload;
    const lifecycle = (payloadOf(EventNames.RunCompleted) ?? payloadOf(EventNames.RunFailed) ?? payloadOf(EventNames.RunStopped)) as RunLifecycleEvent;
    const end: RunEndEffects = { lifecycle, progress: payloadOf(EventNames.RunProgress) as RunProgressEvent };
    if (change.run.wroteInstructions) {
      const last = await this.store.lastLine(change.run.id, 'instructions', 'content');
      const line = last?.body.instructions as { content?: unknown; plan_steps?: unknown } | undefined;
      if (last && line && typeof line.content === 'string') {
        end.instructions = instructionsEvent(change.run, last.index, {
          content: line.content,
          plan_steps: Array.isArray(line.plan_steps) ? line.plan_steps : null,
        }) as RunInstructionsEvent;
      }
    }
    // Only a build run names its agent (as the run.agent_name events it recorded).
    if (change.run.runMode === 'build') {
      const last = await this.store.lastLine(change.run.id, 'agent_name', 'name');
      const line = last?.body.agent_name as { name: string; explanation?: unknown } | undefined;
      if (last && line) {
        end.agent_name = agentNameEvent(change.run, last.index, { name: line.name, explanation: typeof line.explanation === 'string' ? line.explanation : null });
      }
    }
    return end;
  }

  /** Ends aside that nobody finishes: a failed try come due, or a process that died holding one. */
  private sweep(): void {
    if (this.stopped || this.sweeping) return;
    this.sweeping = (async () => {
      const due = await this.store.claimDueEnds(SWEEP_BATCH, this.leaseUntil());
      await Promise.all(due.map((runId) => this.finish(runId)));
    })()
      .catch((error: Error) => this.logger.warn(`run end sweep: ${error.message}; retrying in ${RUN_END_SWEEP_MS} ms`))
      .finally(() => (this.sweeping = undefined));
  }
}

function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

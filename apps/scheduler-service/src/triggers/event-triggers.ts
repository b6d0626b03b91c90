import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { RUN_START_BATCH_MAX, RunLifecycleEvent, TRIGGER_SOURCE_EVENTS, TriggerSourceEvent, TriggeredRunStart } from '@aas/contracts';
import { RunStartAllowance } from '../allowance/run-start-allowance';
import { SchedulerEnv } from '../config/scheduler.env';
import { ExhaustedChains } from './exhausted-chains';
import { TriggerMetrics } from './trigger-metrics';
import { renderMessage } from './message-template';
import { SourceRun, boundedSourceRun } from './trigger-payload';
import { TriggerEntity } from './trigger.entity';
import { TriggerStore } from './trigger.store';
import { TriggeredRunOutcome, TriggeredRunStarter } from './triggered-run-starter';

/**
 * "When agent X's run ends with one of these events, start this agent." Each
 * start is keyed by the source run and its event, so a redelivered event starts
 * nothing new. A chain carries its depth and its root run: past TRIGGER_MAX_DEPTH
 * the start is refused here, past TRIGGER_CHAIN_MAX_RUNS runs-service refuses it,
 * and past the owner's RATE_LIMIT_TRIGGERED_RUNS it is refused here too; each
 * refusal is recorded on its trigger. A chain runs-service found full is refused
 * here from memory afterwards (ExhaustedChains). Self-follows and cycles are allowed: those
 * limits bound them. The starts go to runs-service in batches it accepts.
 */
@Injectable()
export class EventTriggers {
  private readonly logger = new Logger(EventTriggers.name);

  constructor(
    private readonly store: TriggerStore,
    private readonly runs: TriggeredRunStarter,
    private readonly metrics: TriggerMetrics,
    private readonly allowance: RunStartAllowance,
    private readonly exhausted: ExhaustedChains,
    private readonly config: ConfigService<SchedulerEnv, true>,
  ) {}

  async onRunEvent(event: RunLifecycleEvent): Promise<void> {
    if (!isSourceEvent(event.event)) return;
    const triggers = await this.store.activeFollowing(event.user_id, event.agent_id, event.agent_generation ?? null, event.event);
    if (triggers.length === 0) return;
    const depth = (event.trigger_depth ?? 0) + 1;
    const maxDepth = this.config.get('TRIGGER_MAX_DEPTH', { infer: true });
    if (depth > maxDepth) {
      const error = `not started: the chain of event triggers from run ${event.run_id} would be ${depth} deep, more than TRIGGER_MAX_DEPTH (${maxDepth})`;
      this.logger.warn({ run_id: event.run_id, triggers: triggers.map((t) => t.id) }, error);
      this.metrics.count('refused_depth', triggers.length);
      await this.store.recordErrors(triggers.map((t) => ({ triggerId: t.id, error })));
      return;
    }
    const root = event.chain_root_id ?? event.run_id;
    const exhausted = this.exhausted.refusalOf(root);
    if (exhausted) return this.record(triggers, triggers.map(() => ({ refused: exhausted })), root);
    const { granted, retryAfterSeconds } = await this.allowance.take(event.user_id, triggers.length);
    await this.refuseOverAllowance(triggers.slice(granted), retryAfterSeconds);
    const sourceRun = boundedSourceRun(sourceRunOf(event), this.config.get('TRIGGER_PAYLOAD_MAX_BYTES', { infer: true }));
    const allowed = triggers.slice(0, granted);
    for (let i = 0; i < allowed.length; i += RUN_START_BATCH_MAX) {
      const batch = allowed.slice(i, i + RUN_START_BATCH_MAX);
      await this.record(batch, await this.runs.start(batch.map((trigger) => startOf(trigger, sourceRun, depth, root))), root);
    }
  }

  private async refuseOverAllowance(triggers: TriggerEntity[], retryAfterSeconds: number): Promise<void> {
    if (triggers.length === 0) return;
    const error = `not started: ${this.allowance.usedUpReason(retryAfterSeconds)}`;
    this.metrics.count('refused_allowance', triggers.length);
    await this.store.recordErrors(triggers.map((t) => ({ triggerId: t.id, error })));
  }

  /** One batch's outcomes, on its triggers: started, or why not. A chain found full is remembered. */
  private async record(triggers: TriggerEntity[], outcomes: TriggeredRunOutcome[], root: string): Promise<void> {
    const refused = outcomes.flatMap((outcome, i) => ('refused' in outcome ? [{ triggerId: triggers[i].id, problem: outcome.refused }] : []));
    const chainFull = refused.find((r) => r.problem.quota === 'trigger_chain_runs');
    if (chainFull) this.exhausted.remember(root, chainFull.problem);
    this.metrics.count('started', outcomes.filter((o) => 'run_id' in o && o.created).length);
    this.metrics.count('refused_chain', refused.filter((r) => r.problem.quota === 'trigger_chain_runs').length);
    this.metrics.count('refused', refused.filter((r) => r.problem.quota !== 'trigger_chain_runs').length);
    await this.store.recordErrors(refused.map((r) => ({ triggerId: r.triggerId, error: `not started: ${r.problem.detail}` })));
    await this.store.recordStarted(triggers.filter((_, i) => 'run_id' in outcomes[i]).map((t) => t.id));
  }
}

function sourceRunOf(event: RunLifecycleEvent): SourceRun {
  return {
    run_id: event.run_id,
    agent_id: event.agent_id,
    event: event.event,
    status: event.status,
    outcome: event.outcome ?? null,
    summary: event.summary ?? null,
    finished_at: event.finished_at ?? null,
  };
}

function startOf(trigger: TriggerEntity, sourceRun: SourceRun, depth: number, root: string): TriggeredRunStart {
  return {
    user_id: trigger.userId,
    agent_id: trigger.agentId,
    trigger_id: trigger.id,
    trigger_kind: 'event',
    agent_generation: Number(trigger.agentGeneration),
    delivery_key: `run:${sourceRun.run_id}:${sourceRun.event}`,
    user_message: renderMessage(trigger.messageTemplate, { source_run: { ...sourceRun }, trigger: { id: trigger.id, name: trigger.name, kind: trigger.kind } })?.text,
    depth,
    chain_root_id: root,
    data: { source_run: sourceRun },
  };
}

function isSourceEvent(event: string): event is TriggerSourceEvent {
  return (TRIGGER_SOURCE_EVENTS as readonly string[]).includes(event);
}

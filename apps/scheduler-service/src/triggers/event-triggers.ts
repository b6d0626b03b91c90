import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { RunLifecycleEvent, TRIGGER_SOURCE_EVENTS, TriggerSourceEvent, TriggeredRunStart } from '@aas/contracts';
import { SchedulerEnv } from '../config/scheduler.env';
import { TriggerMetrics } from './trigger-metrics';
import { renderMessage } from './message-template';
import { TriggerEntity } from './trigger.entity';
import { TriggerStore } from './trigger.store';
import { TriggeredRunStarter } from './triggered-run-starter';

/**
 * "When agent X's run ends with one of these events, start this agent." Each
 * start is keyed by the source run and its event, so a redelivered event starts
 * nothing new. A chain carries its depth: past TRIGGER_MAX_DEPTH the start is
 * refused and recorded on the trigger, so A→B→A loops stop.
 */
@Injectable()
export class EventTriggers {
  private readonly logger = new Logger(EventTriggers.name);

  constructor(
    private readonly store: TriggerStore,
    private readonly runs: TriggeredRunStarter,
    private readonly metrics: TriggerMetrics,
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
    const outcomes = await this.runs.start(triggers.map((trigger) => startOf(trigger, event, depth)));
    const refused = outcomes.flatMap((outcome, i) => ('refused' in outcome ? [{ triggerId: triggers[i].id, error: `not started: ${outcome.refused.detail}` }] : []));
    this.metrics.count('started', outcomes.filter((o) => 'run_id' in o && o.created).length);
    this.metrics.count('refused', refused.length);
    await this.store.recordErrors(refused);
    await this.store.recordStarted(triggers.filter((_, i) => 'run_id' in outcomes[i]).map((t) => t.id));
  }
}

function startOf(trigger: TriggerEntity, event: RunLifecycleEvent, depth: number): TriggeredRunStart {
  const sourceRun = {
    run_id: event.run_id,
    agent_id: event.agent_id,
    event: event.event,
    status: event.status,
    outcome: event.outcome ?? null,
    summary: event.summary ?? null,
    finished_at: event.finished_at ?? null,
  };
  return {
    user_id: trigger.userId,
    agent_id: trigger.agentId,
    trigger_id: trigger.id,
    trigger_kind: 'event',
    agent_generation: Number(trigger.agentGeneration),
    delivery_key: `run:${event.run_id}:${event.event}`,
    user_message: renderMessage(trigger.messageTemplate, { source_run: sourceRun, trigger: { id: trigger.id, name: trigger.name, kind: trigger.kind } })?.text,
    depth,
    data: { source_run: sourceRun },
  };
}

function isSourceEvent(event: string): event is TriggerSourceEvent {
  return (TRIGGER_SOURCE_EVENTS as readonly string[]).includes(event);
}

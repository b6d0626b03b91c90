import { TriggeredRunStart } from '@aas/contracts';
import { isUUID } from 'class-validator';
import { triggerDeliveryKey } from './idempotency-keys';
import { runStart } from './run-start';
import { RunStartRequest } from './run-start-request';

/** An event trigger's or an inbound hook's start: keyed by its trigger and delivery, so a repeat answers the first run. */
export function triggeredRunStart(start: TriggeredRunStart): RunStartRequest {
  const data = triggerData(start);
  return runStart(start, {
    idempotencyKey: triggerDeliveryKey(start.trigger_id, start.delivery_key),
    goal: start.user_message ?? null,
    trigger: {
      runKind: start.trigger_kind,
      scheduleAgentId: null,
      triggerId: start.trigger_id,
      depth: start.depth,
      chainRootId: start.chain_root_id,
      data,
      ...sourceRunOf(start, data),
    },
    agentGeneration: start.agent_generation,
  });
}

/** A start's trigger data, sent as an object or (inbound calls) as JSON text, which its sender produced with JSON.stringify. */
function triggerData(start: TriggeredRunStart): Record<string, unknown> | undefined {
  return start.data_json === undefined ? start.data : (JSON.parse(start.data_json) as Record<string, unknown>);
}

/** An event trigger's source run (the run whose end fired it), as its sender put it in the data. */
function sourceRunOf(start: TriggeredRunStart, data: Record<string, unknown> | undefined): { sourceRunId?: string } {
  const runId = (data?.source_run as { run_id?: unknown } | undefined)?.run_id;
  return start.trigger_kind === 'event' && typeof runId === 'string' && isUUID(runId) ? { sourceRunId: runId } : {};
}

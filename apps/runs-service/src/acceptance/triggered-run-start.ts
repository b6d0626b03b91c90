import { TriggeredRunStart } from '@aas/contracts';
import { triggerDeliveryKey } from './idempotency-keys';
import { runStart } from './run-start';
import { RunStartRequest } from './run-start-request';

/** An event trigger's or an inbound hook's start: keyed by its trigger and delivery, so a repeat answers the first run. */
export function triggeredRunStart(start: TriggeredRunStart): RunStartRequest {
  return runStart(start, {
    idempotencyKey: triggerDeliveryKey(start.trigger_id, start.delivery_key),
    goal: start.user_message ?? null,
    trigger: {
      runKind: start.trigger_kind,
      scheduleAgentId: null,
      triggerId: start.trigger_id,
      depth: start.depth,
      chainRootId: start.chain_root_id,
      data: triggerData(start),
    },
    agentGeneration: start.agent_generation,
  });
}

/** A start's trigger data, sent as an object or (inbound calls) as JSON text, which its sender produced with JSON.stringify. */
function triggerData(start: TriggeredRunStart): Record<string, unknown> | undefined {
  return start.data_json === undefined ? start.data : (JSON.parse(start.data_json) as Record<string, unknown>);
}

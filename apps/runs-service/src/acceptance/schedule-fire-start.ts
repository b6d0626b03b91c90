import { StartScheduledRunMessage } from '@aas/contracts';
import { scheduleFireKey } from './idempotency-keys';
import { runStart } from './run-start';
import { RunStartRequest } from './run-start-request';

/**
 * A schedule's fire, or a backfill of a fire time (scheduler-service sends both as fires): one run per
 * agent and fire time, of the generation whose schedule fired.
 */
export function scheduleFireStart(fire: StartScheduledRunMessage): RunStartRequest {
  return runStart(fire, {
    idempotencyKey: scheduleFireKey(fire.agent_id, fire.fire_time),
    trigger: { runKind: 'schedule', scheduleAgentId: fire.agent_id },
    dueAt: new Date(fire.fire_time),
    agentGeneration: fire.agent_generation,
  });
}

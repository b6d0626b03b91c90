import { StartRunMessage } from '@aas/contracts';
import { clientIdempotencyKey } from './idempotency-keys';
import { runStart } from './run-start';
import { RunStartRequest } from './run-start-request';

/** `POST /v1/agents/{agent_id}/runs`: the caller's Idempotency-Key (per user, 24 hours), goal, mode and skip_deploy_check. */
export function apiRunStart(message: StartRunMessage): RunStartRequest {
  return runStart(message, {
    idempotencyKey: message.idempotency_key === undefined ? null : clientIdempotencyKey(message.idempotency_key),
    runMode: message.run_mode ?? 'run',
    goal: message.user_message ?? null,
    trigger: { runKind: 'api', scheduleAgentId: null },
    skipDeployCheck: message.skip_deploy_check ?? false,
  });
}

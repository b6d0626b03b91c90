import { EventNames, RunLifecycleEventName } from '@aas/contracts';
import { webhookBody } from '../signing/webhook-body';

/** The run id of every test event: the nil UUID, which no run has, so a receiver can tell a test apart. */
export const TEST_RUN_ID = '00000000-0000-0000-0000-000000000000';

const SAMPLE_STATUS: Record<RunLifecycleEventName, string> = {
  [EventNames.RunStarted]: 'in_progress',
  [EventNames.RunCompleted]: 'completed',
  [EventNames.RunFailed]: 'error',
  [EventNames.RunStopped]: 'stopped',
  [EventNames.RunPaused]: 'paused',
};

/**
 * A sample of the event's notification, built by the code that builds real ones (webhookBody), so the
 * receiver parses exactly what it will get: the webhook's agent, the nil run id, an outcome of success
 * on run.completed, and now as every time.
 */
export function testEventBody(event: RunLifecycleEventName, agentId: string, now: Date): string {
  const at = now.toISOString();
  return webhookBody({
    event,
    run_id: TEST_RUN_ID,
    agent_id: agentId,
    user_id: TEST_RUN_ID,
    status: SAMPLE_STATUS[event],
    outcome: 'success',
    finished_at: at,
    run_kind: 'manual',
    schedule_agent_id: null,
    timestamp: at,
  });
}

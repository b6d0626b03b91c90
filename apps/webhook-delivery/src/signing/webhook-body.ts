import { EventNames, RunLifecycleEvent } from '@aas/contracts';

/** The spec's notification body: outcome on run.completed only, finished_at on terminal events only. */
export function webhookBody(event: RunLifecycleEvent): string {
  const data: Record<string, string> = { run_id: event.run_id, agent_id: event.agent_id, status: event.status };
  if (event.event === EventNames.RunCompleted && event.outcome) data.outcome = event.outcome;
  const terminal = event.event === EventNames.RunCompleted || event.event === EventNames.RunFailed || event.event === EventNames.RunStopped;
  if (terminal && event.finished_at) data.finished_at = event.finished_at;
  return JSON.stringify({ event: event.event, timestamp: event.timestamp, data });
}

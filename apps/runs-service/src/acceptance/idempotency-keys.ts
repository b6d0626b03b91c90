/*
 * Run idempotency keys share one table; each source of runs has a namespace of its
 * own, so no value a client sends as Idempotency-Key can take (or answer for) the
 * key of a schedule's fire.
 */

export function clientIdempotencyKey(key: string): string {
  return `api:${key}`;
}

/** One run per fire time of an agent's schedule: the fire itself, its retries, and backfills of that time. */
export function scheduleFireKey(agentId: string, fireTime: string): string {
  return `schedule:${agentId}:${Date.parse(fireTime)}`;
}

/** One run per trigger and delivery: an inbound call's delivery id, or the source run of an event trigger. */
export function triggerDeliveryKey(triggerId: string, deliveryKey: string): string {
  return `trigger:${triggerId}:${deliveryKey}`;
}

/** One replay per bulk action and run: a chunk taken up again answers the replay it already started. */
export function bulkActionRunKey(bulkActionId: string, runId: string): string {
  return `bulk:${bulkActionId}:${runId}`;
}

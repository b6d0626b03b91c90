import { EntityManager } from 'typeorm';
import { currentRequestId } from '../request-context/request-context';

/**
 * Records an event inside the caller's transaction, so it is published if and only if the change commits.
 * The event's jobs carry the id of the request being handled.
 */
export async function recordEvent(manager: EntityManager, event: string, payload: object): Promise<void> {
  await recordEvents(manager, event, [payload]);
}

/** recordEvent for many events of one name, in one statement. */
export async function recordEvents(manager: EntityManager, event: string, payloads: object[]): Promise<void> {
  if (payloads.length === 0) return;
  await manager.query(`INSERT INTO outbox (event, payload, request_id) SELECT $1, unnest($2::jsonb[]), $3`, [
    event,
    payloads.map((payload) => JSON.stringify(payload)),
    currentRequestId() ?? null,
  ]);
}

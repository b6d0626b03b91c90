import { EntityManager } from 'typeorm';

/** Records an event inside the caller's transaction, so it is published if and only if the change commits. */
export async function recordEvent(manager: EntityManager, event: string, payload: object): Promise<void> {
  await manager.query('INSERT INTO outbox (event, payload) VALUES ($1, $2::jsonb)', [event, JSON.stringify(payload)]);
}

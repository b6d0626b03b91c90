import { RunEntity } from '../database/run.entity';
import { RunChange } from './run-record.store';

const RUN_DATES = ['startedAt', 'lastEventAt', 'finishedAt', 'scheduledFor', 'admittedAt'] as const;

/** A run change as JSON, for a run's end kept aside (run_ends.change). */
export function toStoredChange(change: RunChange): object {
  return { ...change, event: { ...change.event, at: change.event.at.toISOString() } };
}

/** The change `toStoredChange` stored, its times Dates again. */
export function fromStoredChange(stored: object): RunChange {
  const change = stored as RunChange & { event: { at: string } };
  const run = { ...change.run } as RunEntity;
  for (const key of RUN_DATES) {
    const value = run[key] as unknown;
    if (value !== null && value !== undefined) (run as unknown as Record<string, unknown>)[key] = new Date(value as string);
  }
  return { event: { ...change.event, at: new Date(change.event.at) }, run, outbox: change.outbox };
}

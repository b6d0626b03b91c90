/** Where a sweep has got to: the due time (as PostgreSQL wrote it, to the microsecond) and id of the last row read. */
export interface SweepPosition {
  due: string;
  id: string;
}

export const SWEEP_START: SweepPosition = { due: '-infinity', id: '00000000-0000-0000-0000-000000000000' };

/**
 * The sweep's statement (postgres-lost-delivery.store.ts); an abstract class, so that it is the
 * injection token and a fake can stand in for it.
 */
export abstract class LostDeliveryStore {
  /**
   * Pending deliveries due (next_attempt_at, or created_at before the first attempt) more than
   * `marginMs` ago by the database's clock, in due order after `after`, at most `limit` of them.
   */
  abstract overdue(after: SweepPosition, marginMs: number, limit: number): Promise<SweepPosition[]>;
}

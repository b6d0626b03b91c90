import { Injectable } from '@nestjs/common';
import { RUN_START_BATCH_MAX, ScheduleFireEvent } from '@aas/contracts';
import { ScheduledRunStarter } from './scheduled-run-starter';

/**
 * How long a fire that is already due waits for others of its instant. Fires
 * come late one by one (after an outage, or when the host is overloaded):
 * gathering them keeps one request per instant when requests cost the most.
 */
export const LATE_FIRES_GATHER_MS = 20;

interface WaitingFire {
  fire: ScheduleFireEvent;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Holds each fire until its fire time and starts all the fires of one instant
 * together: many schedules are due at the same second (every minute on the
 * minute, every 10 s, …), and one request for all of them costs about what one
 * fire did.
 */
@Injectable()
export class FireBatcher {
  private readonly waiting = new Map<number, WaitingFire[]>();

  constructor(private readonly starter: ScheduledRunStarter) {}

  /** Settles when the fire's batch has been handled; rejects, for the job to be retried, when it could not be. */
  fire(fire: ScheduleFireEvent): Promise<void> {
    const at = Date.parse(fire.fire_time);
    return new Promise((resolve, reject) => {
      const batch = this.waiting.get(at);
      if (batch) {
        batch.push({ fire, resolve, reject });
        return;
      }
      this.waiting.set(at, [{ fire, resolve, reject }]);
      const wait = at - Date.now();
      setTimeout(() => this.release(at), wait > 0 ? wait : LATE_FIRES_GATHER_MS);
    });
  }

  private release(at: number): void {
    const batch = this.waiting.get(at) ?? [];
    this.waiting.delete(at);
    for (let i = 0; i < batch.length; i += RUN_START_BATCH_MAX) {
      const chunk = batch.slice(i, i + RUN_START_BATCH_MAX);
      this.starter.start(chunk.map((w) => w.fire)).then(
        () => chunk.forEach((w) => w.resolve()),
        (error: unknown) => chunk.forEach((w) => w.reject(error)),
      );
    }
  }
}

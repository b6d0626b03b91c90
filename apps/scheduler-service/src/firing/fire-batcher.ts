import { Injectable } from '@nestjs/common';
import { RUN_START_BATCH_MAX, ScheduleFireEvent } from '@aas/contracts';
import { refusedWhole, settleSplitting } from '@aas/platform';
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
 * fire did. A batch runs-service refused as a whole is started again in halves,
 * down to single fires, so one fire to blame fails only its own job (runs are
 * keyed by fire time: none starts twice).
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
    for (let i = 0; i < batch.length; i += RUN_START_BATCH_MAX) void this.startChunk(batch.slice(i, i + RUN_START_BATCH_MAX));
  }

  private async startChunk(chunk: WaitingFire[]): Promise<void> {
    const start = async (fires: ScheduleFireEvent[]) => {
      await this.starter.start(fires);
      return fires.map(() => undefined);
    };
    const settled = await settleSplitting(
      chunk.map((w) => w.fire),
      start,
      refusedWhole,
    );
    chunk.forEach((waiting, i) => {
      const result = settled[i];
      if ('value' in result) waiting.resolve();
      else waiting.reject(result.error);
    });
  }
}

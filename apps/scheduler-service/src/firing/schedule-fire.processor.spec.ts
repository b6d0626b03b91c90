import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ScheduleFireEvent } from '@aas/contracts';
import { Job, UnrecoverableError } from 'bullmq';
import { Registry } from 'prom-client';
import { SchedulerEnv } from '../config/scheduler.env';
import { FakeScheduleStore } from '../schedules/schedule.store.fake';
import { FireBatcher } from './fire-batcher';
import { FireMetrics } from './fire-metrics';
import { ScheduleFailures } from './schedule-failures';
import { ScheduleFireProcessor } from './schedule-fire.processor';

describe(ScheduleFireProcessor.name, () => {
  beforeAll(() => Logger.overrideLogger(false)); // the failures it logs are expected here
  afterAll(() => Logger.overrideLogger(new Logger()));
  const fire: ScheduleFireEvent = {
    agent_id: '7d4f7c8e-5d7b-4a8e-9a55-2c8f3f1e6b10',
    user_id: '0b6c1d8e-2f5a-4c3b-9d7e-1a2b3c4d5e6f',
    fire_time: '2026-01-01T00:00:00.000Z',
  };

  function setup(batch: () => Promise<void>) {
    const registry = new Registry();
    const store = new FakeScheduleStore();
    const recorded = store.fireFailures;
    const batcher = { fire: batch } as unknown as FireBatcher;
    const config = { get: () => 5 } as unknown as ConfigService<SchedulerEnv, true>; // SCHEDULE_AUTO_PAUSE_AFTER
    const sut = new ScheduleFireProcessor(batcher, new ScheduleFailures(store, config), new FireMetrics(registry));
    const outcomes = async () => {
      const metric = await registry.getSingleMetric('aas_schedule_fires_total')!.get();
      return Object.fromEntries(metric.values.filter((v) => v.value > 0).map((v) => [v.labels.outcome, v.value]));
    };
    return { sut, recorded, outcomes };
  }

  const job = (attemptsMade: number, data: object = fire) => ({ id: '1', name: 'schedule.fire', data, attemptsMade, opts: { attempts: 10 } }) as unknown as Job<ScheduleFireEvent>;
  const unavailable = () => Promise.reject(new Error('runs-service did not answer'));

  it('lets a failed attempt with attempts left be retried, recording nothing on the schedule', async () => {
    const { sut, recorded, outcomes } = setup(unavailable);
    await expect(sut.process(job(3))).rejects.toThrow('runs-service did not answer');
    expect(recorded).toEqual([]);
    expect(await outcomes()).toEqual({ retried: 1 });
  });

  it('records the last failed attempt as a failed fire of its schedule (toward auto-pause), logs it, then fails the job', async () => {
    const { sut, recorded, outcomes } = setup(unavailable);
    const logged = jest.spyOn(Logger.prototype, 'error');
    await expect(sut.process(job(9))).rejects.toThrow('runs-service did not answer');
    expect(recorded).toEqual([
      { agentId: fire.agent_id, error: `the run of the fire at ${fire.fire_time} could not be started: runs-service did not answer`, autoPauseAfter: 5 },
    ]);
    expect(await outcomes()).toEqual({ failed: 1 });
    expect(logged).toHaveBeenCalledWith(expect.objectContaining({ agent_id: fire.agent_id, fire_time: fire.fire_time }), 'schedule fire failed for good');
    logged.mockRestore();
  });

  it('does not count a fire whose batch succeeded', async () => {
    const { sut, recorded, outcomes } = setup(() => Promise.resolve());
    await sut.process(job(0));
    expect(recorded).toEqual([]);
    expect(await outcomes()).toEqual({});
  });

  it('fails a malformed payload for good, without retries', async () => {
    const { sut, outcomes } = setup(() => Promise.resolve());
    await expect(sut.process(job(0, { agent_id: 'not-a-uuid' }))).rejects.toBeInstanceOf(UnrecoverableError);
    expect(await outcomes()).toEqual({ failed: 1 });
  });
});

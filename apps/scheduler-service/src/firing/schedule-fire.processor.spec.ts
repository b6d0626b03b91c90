import { Logger } from '@nestjs/common';
import { ScheduleFireEvent } from '@aas/contracts';
import { Job, UnrecoverableError } from 'bullmq';
import { Registry } from 'prom-client';
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
    const recorded: Array<{ agentId: string; error: string }> = [];
    const batcher = { fire: batch } as unknown as FireBatcher;
    const failures = { recordFailedFires: async (f: typeof recorded) => void recorded.push(...f) } as unknown as ScheduleFailures;
    const sut = new ScheduleFireProcessor(batcher, failures, new FireMetrics(registry));
    const outcomes = async () => {
      const metric = await registry.getSingleMetric('aas_schedule_fires_total')!.get();
      return Object.fromEntries(metric.values.filter((v) => v.value > 0).map((v) => [v.labels.outcome, v.value]));
    };
    return { sut, recorded, outcomes };
  }

  const job = (attemptsMade: number, data: object = fire) => ({ id: '1', data, attemptsMade, opts: { attempts: 10 } }) as unknown as Job<ScheduleFireEvent>;
  const unavailable = () => Promise.reject(new Error('runs-service did not answer'));

  it('lets a failed attempt with attempts left be retried, recording nothing on the schedule', async () => {
    const { sut, recorded, outcomes } = setup(unavailable);
    await expect(sut.process(job(3))).rejects.toThrow('runs-service did not answer');
    expect(recorded).toEqual([]);
    expect(await outcomes()).toEqual({ retried: 1 });
  });

  it('records the last failed attempt as a failed fire of its schedule, then fails the job', async () => {
    const { sut, recorded, outcomes } = setup(unavailable);
    await expect(sut.process(job(9))).rejects.toThrow('runs-service did not answer');
    expect(recorded).toEqual([
      { agentId: fire.agent_id, error: `the run of the fire at ${fire.fire_time} could not be started: runs-service did not answer` },
    ]);
    expect(await outcomes()).toEqual({ failed: 1 });
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

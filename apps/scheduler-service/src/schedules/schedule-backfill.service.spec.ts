import { ConfigService } from '@nestjs/config';
import { OwnedAgent, BackfillScheduleMessage, RunsPatterns, ScheduledRunOutcome, StartScheduledRunMessage } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { QuotaExceededError, ResourceNotFoundError, TooManyRequestsError, ValidationFailedError } from '@aas/problem-details';
import { RunStartAllowance } from '../allowance/run-start-allowance';
import { OwnedAgents } from '../agents/owned-agents';
import { SchedulerEnv } from '../config/scheduler.env';
import { CronScheduleCache } from '../cron/cron-schedule-cache';
import { ScheduleBackfill } from './schedule-backfill.service';
import { ScheduleEntity } from './schedule.entity';
import { FakeScheduleStore, scheduleRow } from './schedule.store.fake';
import { SchedulesService } from './schedules.service';

const USER = '0b6c1d8e-2f5a-4c3b-9d7e-1a2b3c4d5e6f';
const AGENT = '00000000-0000-4000-8000-000000000001';
const NOW = new Date('2026-03-02T10:05:30Z');
const MAX_RUNS = 5;
const hour = (h: number) => new Date(Date.UTC(2026, 2, 2, h)).toISOString();

describe(ScheduleBackfill.name, () => {
  beforeEach(() => jest.useFakeTimers({ now: NOW, doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask', 'performance'] }));
  afterEach(() => jest.useRealTimers());

  function setup(schedule: Partial<ScheduleEntity> = {}) {
    const store = new FakeScheduleStore([scheduleRow({ agentId: AGENT, userId: USER, cron: '0 0 * * * ? *', agentGeneration: '6', ...schedule })]);
    const agents = { get: async (_user: string, agentId: string): Promise<Partial<OwnedAgent>> => ({ agent_id: agentId, generation: 6 }) } as unknown as OwnedAgents;
    const crons = new CronScheduleCache();
    const requests: StartScheduledRunMessage[][] = [];
    let refusal: string | undefined;
    let waitingFullAfter = Infinity;
    const waitingFull = { type: 'urn:aas:problem:quota-exceeded', title: 'Unprocessable Entity', status: 422, detail: 'You have 3 runs waiting', quota: 'waiting_runs_per_user', limit: 3 };
    const services = {
      request: async (pattern: string, { fires }: { fires: StartScheduledRunMessage[] }) => {
        expect(pattern).toBe(RunsPatterns.StartScheduledRuns);
        requests.push(fires);
        return {
          outcomes: fires.map((f, i): ScheduledRunOutcome =>
            refusal
              ? { agent_id: f.agent_id, fire_time: f.fire_time, refused: { type: 'urn:aas:problem:validation-failed', title: 'Bad Request', status: 400, detail: refusal } }
              : i >= waitingFullAfter
                ? { agent_id: f.agent_id, fire_time: f.fire_time, refused: waitingFull }
                : { agent_id: f.agent_id, fire_time: f.fire_time, run_id: `run-${Date.parse(f.fire_time)}-${i}` },
          ),
        };
      },
    } as unknown as ServiceClient;
    const config = { get: () => MAX_RUNS } as unknown as ConfigService<SchedulerEnv, true>; // SCHEDULE_BACKFILL_MAX_RUNS
    const taken: number[] = [];
    let allowanceLeft = Infinity;
    const allowance = {
      takeAll: async (_user: string, starts: number) => {
        if (starts > allowanceLeft) throw new TooManyRequestsError('The allowance is used up', 9);
        taken.push(starts);
      },
    } as unknown as RunStartAllowance;
    const sut = new ScheduleBackfill(new SchedulesService(store, crons, agents), crons, services, config, allowance);
    const backfill = (from: string, to: string, agentId = AGENT) => sut.backfill({ user_id: USER, agent_id: agentId, from, to } as BackfillScheduleMessage);
    return {
      backfill,
      requests,
      taken,
      refuse: (detail: string) => (refusal = detail),
      waitingFullAfter: (started: number) => (waitingFullAfter = started),
      allowance: (left: number) => (allowanceLeft = left),
    };
  }

  describe('bounds', () => {
    it('takes every fire time in the range, both ends included, oldest first, up to SCHEDULE_BACKFILL_MAX_RUNS', async () => {
      const { backfill, requests } = setup();
      const { runs } = await backfill(hour(4), hour(8));
      expect(runs.map((r) => r.fire_time)).toEqual([4, 5, 6, 7, 8].map(hour));
      expect(requests).toHaveLength(1);
    });

    it('refuses a range with more fire times than SCHEDULE_BACKFILL_MAX_RUNS, asking runs-service nothing', async () => {
      const { backfill, requests } = setup();
      await expect(backfill(hour(3), hour(8))).rejects.toThrow(`the range holds more than ${MAX_RUNS} fire times`);
      expect(requests).toEqual([]);
    });

    it('refuses a range that ends in the future or starts after its end, naming the field', async () => {
      const { backfill, requests } = setup();
      const refusal = (from: string, to: string) => backfill(from, to).catch((error: ValidationFailedError) => [error.message, error.errors?.[0].field]);
      expect(await refusal(hour(9), '2026-03-02T10:05:31.000Z')).toEqual([expect.stringMatching(/to is in the future/), 'to']);
      expect(await refusal(hour(8), hour(7))).toEqual(['from is after to', 'from']);
      expect(requests).toEqual([]);
    });

    it('takes a range that ends now, and answers a range without fire times with no runs, asking nothing', async () => {
      const { backfill, requests } = setup();
      expect((await backfill(hour(10), NOW.toISOString())).runs.map((r) => r.fire_time)).toEqual([hour(10)]);
      expect(await backfill('2026-03-02T09:00:01Z', '2026-03-02T09:59:59Z')).toEqual({ runs: [] });
      expect(requests).toHaveLength(1);
    });
  });

  describe("the owner's limits", () => {
    it("takes one start per fire time from the owner's allowance, and refuses a backfill larger than what is left with a 429, asking runs-service nothing", async () => {
      const { backfill, requests, taken, allowance } = setup();
      await backfill(hour(4), hour(6));
      expect(taken).toEqual([3]);
      allowance(2);
      await expect(backfill(hour(4), hour(6))).rejects.toMatchObject({ retryAfterSeconds: 9 });
      expect(requests).toHaveLength(1);
    });

    it('answers 422 waiting_runs_per_user when the owner has the most runs waiting, saying how many fire times started', async () => {
      const { backfill, waitingFullAfter } = setup();
      waitingFullAfter(2);
      const refusal = await backfill(hour(4), hour(8)).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(QuotaExceededError);
      expect(refusal).toMatchObject({ quota: 'waiting_runs_per_user', limit: 3, message: expect.stringMatching(/^2 of the 5 fire times started: You have 3 runs waiting/) });
    });
  });

  describe('idempotency keys', () => {
    it("sends each fire exactly as the schedule's own fire of that time, with the schedule's agent generation", async () => {
      const { backfill, requests } = setup({ paused: true }); // a paused schedule can be backfilled
      await backfill(hour(7), hour(8));
      // runs-service keys a run by agent and fire time (schedule:<agent>:<epoch ms>): the same key as the tick's fire.
      expect(requests[0]).toEqual([
        { user_id: USER, agent_id: AGENT, fire_time: hour(7), agent_generation: 6 },
        { user_id: USER, agent_id: AGENT, fire_time: hour(8), agent_generation: 6 },
      ]);
    });

    it('sends the same fire times again for a repeated or overlapping range, so runs-service answers the same runs', async () => {
      const { backfill, requests } = setup();
      await backfill(hour(6), hour(8));
      await backfill(hour(6), hour(8));
      await backfill('2026-03-02T05:30:00Z', hour(7));
      const keys = requests.map((fires) => fires.map((f) => `schedule:${f.agent_id}:${Date.parse(f.fire_time)}`));
      expect(keys[1]).toEqual(keys[0]);
      expect(keys[2]).toEqual(keys[0].slice(0, 2));
    });

    it('leaves out the generation of a schedule set by an earlier version', async () => {
      const { backfill, requests } = setup({ agentGeneration: null });
      await backfill(hour(8), hour(8));
      expect(requests[0]).toEqual([{ user_id: USER, agent_id: AGENT, fire_time: hour(8) }]);
    });
  });

  it('refuses the backfill of an expression that can no longer be evaluated, or that runs-service refuses, with a 400', async () => {
    const broken = setup({ cron: '0 0 * * * ? * extra' });
    await expect(broken.backfill(hour(7), hour(8))).rejects.toThrow(/can no longer be evaluated/);
    const undeployed = setup();
    undeployed.refuse('The agent is not deployed');
    await expect(undeployed.backfill(hour(7), hour(8))).rejects.toThrow(new ValidationFailedError('The agent is not deployed'));
  });

  it('is a 404 for an agent without a schedule', async () => {
    const { backfill } = setup();
    await expect(backfill(hour(7), hour(8), '00000000-0000-4000-8000-000000000002')).rejects.toThrow(ResourceNotFoundError);
  });
});

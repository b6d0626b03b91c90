import { OwnedAgent, PutScheduleMessage } from '@aas/contracts';
import { RemoteProblemError, ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { OwnedAgents } from '../agents/owned-agents';
import { CronScheduleCache } from '../cron/cron-schedule-cache';
import { ScheduleEntity } from './schedule.entity';
import { FakeScheduleStore, scheduleRow } from './schedule.store.fake';
import { SchedulesService } from './schedules.service';

const USER = '0b6c1d8e-2f5a-4c3b-9d7e-1a2b3c4d5e6f';
const agent = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const NOW = new Date('2026-06-01T00:00:00Z');
const [FINISHED, BROKEN, HOURLY, GONE, UNDEPLOYED] = [1, 2, 3, 4, 5].map(agent);

describe(SchedulesService.name, () => {
  beforeEach(() => jest.useFakeTimers({ now: NOW, doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask', 'performance'] }));
  afterEach(() => jest.useRealTimers());

  function setup(extra: ScheduleEntity[] = []) {
    const row = (agentId: string, changes: Partial<ScheduleEntity>) => scheduleRow({ agentId, userId: USER, agentGeneration: '1', ...changes });
    const store = new FakeScheduleStore([
      row(FINISHED, { cron: '1 0 10 1 5 ? 2026', nextRunAt: null, paused: true, autoPaused: true, consecutiveFailures: 5 }),
      row(BROKEN, { cron: '0 0 0 1 1 ? 2099 extra-field', nextRunAt: null }),
      row(HOURLY, { cron: '0 0 * * * ? *', nextRunAt: new Date('2026-06-01T01:00:00Z'), paused: true, autoPaused: true, consecutiveFailures: 5 }),
      row(GONE, {}),
      ...extra,
    ]);
    const notFound = (agentId: string) => new RemoteProblemError({ type: 'urn:aas:problem:not-found', title: 'Not Found', status: 404, detail: `Agent ${agentId} not found` });
    const agents = {
      get: async (_user: string, agentId: string): Promise<Partial<OwnedAgent>> => {
        if (agentId === GONE) throw notFound(agentId);
        return { agent_id: agentId, generation: 1, deployment_state: agentId === UNDEPLOYED ? 'not_deployed' : 'deployed' };
      },
      generationsOf: async (_user: string, ids: string[]) => new Map(ids.filter((id) => id !== GONE).map((id) => [id, 1])),
    } as unknown as OwnedAgents;
    return { sut: new SchedulesService(store, new CronScheduleCache(), agents), store };
  }

  describe('a finished schedule, or one whose expression can no longer be evaluated', () => {
    it('reads as finished: no next run, no upcoming fires, and the reason it cannot be evaluated', async () => {
      const { sut } = setup();
      expect(await sut.get(USER, FINISHED)).toMatchObject({ finished: true, next_run: 0, upcoming: [], last_error: null });
      expect(await sut.get(USER, BROKEN)).toMatchObject({
        finished: true,
        next_run: 0,
        upcoming: [],
        last_error: expect.stringMatching(/can no longer be evaluated/),
      });
    });

    it('is listed with the others; schedules of agents that are gone are left out', async () => {
      const { sut } = setup();
      const listed = await sut.list(USER);
      expect(listed.map((s) => [s.agent_id, s.finished])).toEqual([
        [FINISHED, true],
        [BROKEN, true],
        [HOURLY, false],
      ]);
    });

    it('can be paused, resumed (staying finished, with the reason recorded) and deleted', async () => {
      const { sut, store } = setup();
      for (const agentId of [FINISHED, BROKEN]) {
        await sut.pause(USER, agentId);
        await sut.resume(USER, agentId);
        expect(store.rows.get(agentId)).toMatchObject({ paused: false, autoPaused: false, consecutiveFailures: 0, nextRunAt: null });
      }
      expect(store.rows.get(BROKEN)!.lastError).toMatch(/can no longer be evaluated/);
      expect(store.rows.get(FINISHED)!.lastError).toBeNull();
      for (const agentId of [FINISHED, BROKEN]) await sut.delete(USER, agentId);
      expect([...store.rows.keys()]).toEqual([HOURLY, GONE]);
    });
  });

  it('resumes an auto-paused schedule from its next fire after now, with the failure count cleared', async () => {
    const { sut, store } = setup();
    await sut.resume(USER, HOURLY);
    expect(store.rows.get(HOURLY)).toMatchObject({ paused: false, autoPaused: false, consecutiveFailures: 0, nextRunAt: new Date('2026-06-01T01:00:00Z') });
  });

  it('answers a 404 for an id that is no uuid, an agent without a schedule and an agent that is gone', async () => {
    const { sut } = setup();
    await expect(sut.get(USER, 'not-a-uuid')).rejects.toThrow(ResourceNotFoundError);
    expect(await sut.get(USER, agent(9))).toBeNull();
    await expect(sut.pause(USER, agent(9))).rejects.toThrow(ResourceNotFoundError);
    await expect(sut.get(USER, GONE)).rejects.toThrow(RemoteProblemError);
  });

  describe('put', () => {
    const put = (changes: Partial<PutScheduleMessage>) => ({ user_id: USER, agent_id: agent(7), cron: '0 0 * * * ? *', ...changes }) as PutScheduleMessage;

    it('stores a schedule with its defaults (overlap skip, misfire fire_once) from its next fire after now', async () => {
      const { sut, store } = setup();
      await sut.put(put({ cron: '  0 30 * * * ? *  ' }));
      expect(store.rows.get(agent(7))).toMatchObject({
        cron: '0 30 * * * ? *',
        overlap: 'skip',
        misfire: 'fire_once',
        catchUpWindowSeconds: null,
        nextRunAt: new Date('2026-06-01T00:30:00Z'),
        agentGeneration: '1',
      });
      await sut.put(put({ misfire: 'catch_up' }));
      expect(store.rows.get(agent(7))).toMatchObject({ misfire: 'catch_up', catchUpWindowSeconds: 3600 });
    });

    it('refuses an agent not deployed, an expression that never fires again and a catch-up window without catch_up, storing nothing', async () => {
      const { sut, store } = setup();
      await expect(sut.put(put({ agent_id: UNDEPLOYED }))).rejects.toThrow(/not deployed/);
      await expect(sut.put(put({ cron: '1 0 10 1 5 ? 2026' }))).rejects.toThrow(/never fires again/);
      await expect(sut.put(put({ catch_up_window: 60 }))).rejects.toThrow(ValidationFailedError);
      await expect(sut.put(put({ cron: '0 0 * * * ?', timezone: 'Mars/Olympus' }))).rejects.toThrow(ValidationFailedError);
      expect(store.rows.has(agent(7))).toBe(false);
    });
  });
});

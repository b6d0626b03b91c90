import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { RunsPatterns, ScheduleFireEvent, ScheduledRunOutcome, StartScheduledRunMessage } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { RemoteProblemError } from '@aas/problem-details';
import { Registry } from 'prom-client';
import { SchedulerEnv } from '../config/scheduler.env';
import { ScheduleEntity } from '../schedules/schedule.entity';
import { FakeScheduleStore, scheduleRow } from '../schedules/schedule.store.fake';
import { FireMetrics } from './fire-metrics';
import { ScheduleFailures } from './schedule-failures';
import { ScheduledRunStarter } from './scheduled-run-starter';

const USER = '0b6c1d8e-2f5a-4c3b-9d7e-1a2b3c4d5e6f';
const FIRE_TIME = '2026-03-02T10:05:00.000Z';
const agent = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const run = (n: number) => `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`;
const fireOf = (agentId: string, changes: Partial<ScheduleFireEvent> = {}): ScheduleFireEvent => ({
  agent_id: agentId,
  user_id: USER,
  fire_time: FIRE_TIME,
  agent_generation: 1,
  ...changes,
});

/** runs-service as the starter sees it: which runs are unfinished, and what it answers for each fire. */
class FakeRunsService {
  readonly unfinished = new Set<string>();
  readonly gone = new Set<string>();
  readonly refusals = new Map<string, string>();
  readonly started: StartScheduledRunMessage[][] = [];

  async request(pattern: string, message: any): Promise<unknown> {
    if (pattern === RunsPatterns.GetRun) {
      if (this.gone.has(message.run_id)) throw new RemoteProblemError({ type: 'urn:aas:problem:not-found', title: 'Not Found', status: 404, detail: 'no run' });
      return { run: { run_id: message.run_id, is_finished: !this.unfinished.has(message.run_id) } };
    }
    if (pattern === RunsPatterns.StartScheduledRuns) {
      const fires = message.fires as StartScheduledRunMessage[];
      this.started.push(fires);
      return {
        outcomes: fires.map((fire, i): ScheduledRunOutcome => {
          const refusal = this.refusals.get(fire.agent_id);
          if (refusal) return { agent_id: fire.agent_id, fire_time: fire.fire_time, refused: { type: 'urn:aas:problem:validation-failed', title: 'Bad Request', status: 400, detail: refusal } };
          return { agent_id: fire.agent_id, fire_time: fire.fire_time, run_id: run(100 + i) };
        }),
      };
    }
    throw new Error(`unexpected request ${pattern}`);
  }
}

describe(ScheduledRunStarter.name, () => {
  beforeAll(() => Logger.overrideLogger(false)); // the failed fires it logs are expected here
  afterAll(() => Logger.overrideLogger(new Logger()));

  function setup(rows: ScheduleEntity[]) {
    const store = new FakeScheduleStore(rows);
    const runs = new FakeRunsService();
    const registry = new Registry();
    const metrics = new FireMetrics(registry);
    const config = { get: () => 3 } as unknown as ConfigService<SchedulerEnv, true>; // SCHEDULE_AUTO_PAUSE_AFTER
    const failures = new ScheduleFailures(store, config);
    const sut = new ScheduledRunStarter(store, runs as unknown as ServiceClient, failures, metrics);
    const outcomes = async () => {
      const metric = await registry.getSingleMetric('aas_schedule_fires_total')!.get();
      return Object.fromEntries(metric.values.filter((v) => v.value > 0).map((v) => [v.labels.outcome, v.value]));
    };
    const startedAgents = () => runs.started.flat().map((f) => f.agent_id);
    return { sut, store, runs, outcomes, startedAgents };
  }

  describe('the overlap rule', () => {
    it('skips the fire of an overlap-skip schedule whose last run is unfinished, and starts the others in one request', async () => {
      const { sut, store, runs, outcomes, startedAgents } = setup([
        scheduleRow({ agentId: agent(1), overlap: 'skip', activeRunId: run(1) }), // still going
        scheduleRow({ agentId: agent(2), overlap: 'skip', activeRunId: run(2) }), // finished, its end event not yet here
        scheduleRow({ agentId: agent(3), overlap: 'skip', activeRunId: run(3) }), // deleted by now
        scheduleRow({ agentId: agent(4), overlap: 'skip', activeRunId: null }), // its end event arrived
        scheduleRow({ agentId: agent(5), overlap: 'allow', activeRunId: run(5) }), // overlap allowed
      ]);
      runs.unfinished.add(run(1)).add(run(5));
      runs.gone.add(run(3));
      await sut.start([1, 2, 3, 4, 5].map((n) => fireOf(agent(n))));
      expect(runs.started).toHaveLength(1);
      expect(startedAgents()).toEqual([agent(2), agent(3), agent(4), agent(5)]);
      expect(await outcomes()).toEqual({ started: 4, skipped_overlap: 1 });
      // The started runs become each schedule's run for the next fire's rule; the skipped one keeps its own.
      expect(store.rows.get(agent(1))!.activeRunId).toBe(run(1));
      expect(store.rows.get(agent(5))!.activeRunId).toBe(run(103));
    });

    it('lets an error asking runs-service about the last run fail the batch, for its jobs to be retried', async () => {
      const { sut, runs } = setup([scheduleRow({ agentId: agent(1), overlap: 'skip', activeRunId: run(1) })]);
      runs.request = async () => {
        throw new RemoteProblemError({ type: 'urn:aas:problem:unavailable', title: 'Service Unavailable', status: 503, detail: 'runs-service is down' });
      };
      await expect(sut.start([fireOf(agent(1))])).rejects.toThrow('runs-service is down');
    });
  });

  it('starts nothing for a schedule paused or deleted while its fire waited, or replaced by a new agent with the same id', async () => {
    const { sut, runs, outcomes, startedAgents } = setup([
      scheduleRow({ agentId: agent(1), paused: true }),
      scheduleRow({ agentId: agent(3), agentGeneration: '2' }),
      scheduleRow({ agentId: agent(4), agentGeneration: '2' }),
      scheduleRow({ agentId: agent(5), agentGeneration: null }), // set by an earlier version: any fire is its own
    ]);
    await sut.start([
      fireOf(agent(1)),
      fireOf(agent(2)), // no schedule any more
      fireOf(agent(3), { agent_generation: 1 }), // the deleted agent's fire
      fireOf(agent(4), { agent_generation: undefined }), // recorded before generations: taken as the schedule's
      fireOf(agent(5)),
    ]);
    expect(startedAgents()).toEqual([agent(4), agent(5)]);
    expect(runs.started[0].map((f) => f.agent_generation)).toEqual([2, undefined]);
    expect(await outcomes()).toEqual({ started: 2, skipped_paused: 1, skipped_deleted: 2 });
  });

  it('sends runs-service only the fields of a start, whatever else a job of another version carries', async () => {
    const { sut, runs } = setup([scheduleRow({ agentId: agent(1) })]);
    await sut.start([{ ...fireOf(agent(1)), extra: 'from a newer version' } as ScheduleFireEvent]);
    expect(runs.started).toEqual([[{ user_id: USER, agent_id: agent(1), fire_time: FIRE_TIME, agent_generation: 1 }]]);
  });

  it("records a refused fire as a failure of that schedule only, with the threshold that auto-pauses it", async () => {
    const { sut, store, runs, outcomes } = setup([scheduleRow({ agentId: agent(1) }), scheduleRow({ agentId: agent(2) })]);
    runs.refusals.set(agent(1), 'The agent is not deployed');
    await sut.start([fireOf(agent(1)), fireOf(agent(2))]);
    expect(store.fireFailures).toEqual([
      { agentId: agent(1), error: `runs-service refused the run of the fire at ${FIRE_TIME}: The agent is not deployed`, autoPauseAfter: 3 },
    ]);
    expect(await outcomes()).toEqual({ started: 1, refused: 1 });
    expect(store.rows.get(agent(1))!.activeRunId).toBeNull();
    expect(store.rows.get(agent(2))!.activeRunId).toBe(run(101));
  });

  it('asks runs-service nothing when no fire is due', async () => {
    const { sut, runs, outcomes } = setup([scheduleRow({ agentId: agent(1), paused: true })]);
    await sut.start([fireOf(agent(1))]);
    expect(runs.started).toEqual([]);
    expect(await outcomes()).toEqual({ skipped_paused: 1 });
  });
});

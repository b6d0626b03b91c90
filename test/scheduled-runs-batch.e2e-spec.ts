import { randomUUID } from 'node:crypto';
import { RunsPatterns, ScheduledRunOutcome, StartScheduledRunMessage, } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { http } from './support/http';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** runs.start-scheduled-batch as the scheduler sends it, against the real runs-service and agents-service. */
describe('Starting the runs of a batch of schedule fires', () => {
  let system: TestSystem;
  let user: User;
  let services: ServiceClient;

  beforeAll(async () => {
    system = await TestSystem.start({ runsEnv: { BUILTIN_RUNTIME_STEP_MS: '10' } });
    user = await freshUser(system, 'batch');
    services = system.others.scheduler!.get(ServiceClient);
  });
  afterAll(() => system.stop());

  async function newAgent(owner = user): Promise<string> {
    return (await http(system.url(), 'POST', '/v1/agents', { key: owner.key, body: {} })).body.agent.agent_id;
  }

  async function deployedAgent(): Promise<string> {
    const agentId = await newAgent();
    await http(system.url(), 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { run_mode: 'build' } });
    for (const until = Date.now() + 15_000; Date.now() < until; await sleep(100)) {
      const agent = (await http(system.url(), 'GET', `/v1/agents/${agentId}`, { key: user.key })).body.agent;
      if (agent.deployment_state === 'deployed') return agentId;
    }
    throw new Error(`agent ${agentId} was not deployed`);
  }

  const fireOf = (agentId: string, fireTime: string, owner = user): StartScheduledRunMessage => ({
    user_id: owner.userId,
    agent_id: agentId,
    fire_time: fireTime,
  });

  const startBatch = async (fires: StartScheduledRunMessage[]): Promise<ScheduledRunOutcome[]> =>
    (await services.request(RunsPatterns.StartScheduledRuns, { fires })).outcomes;

  const runIdOf = (outcome: ScheduledRunOutcome): string => {
    if (!('run_id' in outcome)) throw new Error(`fire refused: ${JSON.stringify(outcome)}`);
    return outcome.run_id;
  };

  const scheduledRuns = async (agentId: string) =>
    (await http(system.url(), 'GET', `/v1/agents/${agentId}/runs?page_size=1000`, { key: user.key })).body.runs.filter(
      (r: { run_kind: string }) => r.run_kind === 'schedule',
    );

  it('starts one scheduled run per fire; the same batch sent again starts none and answers the same runs', async () => {
    const agents = [await deployedAgent(), await deployedAgent(), await deployedAgent()];
    const fireTime = new Date().toISOString();
    const fires = agents.map((agentId) => fireOf(agentId, fireTime));

    const first = await startBatch(fires);
    expect(first.map((o) => o.agent_id)).toEqual(agents);
    const runIds = first.map(runIdOf);
    expect(new Set(runIds).size).toBe(3);

    const again = await startBatch(fires);
    expect(again.map(runIdOf)).toEqual(runIds);
    for (const [i, agentId] of agents.entries()) {
      const runs = await scheduledRuns(agentId);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ run_id: runIds[i], run_kind: 'schedule', schedule_agent_id: agentId, run_number: 2 });
    }
  });

  it('makes one run of a fire delivered twice at once, in one batch or in two concurrent batches', async () => {
    const agentId = await deployedAgent();
    const fire = fireOf(agentId, new Date().toISOString());
    const [inOneBatch, concurrentA, concurrentB] = await Promise.all([startBatch([fire, fire]), startBatch([fire]), startBatch([fire])]);
    const runIds = [...inOneBatch, ...concurrentA, ...concurrentB].map(runIdOf);
    expect(new Set(runIds).size).toBe(1);
    expect(await scheduledRuns(agentId)).toHaveLength(1);
  });

  it('refuses a fire whose agent is not deployed, gone or another user\'s, and starts the others', async () => {
    const deployed = await deployedAgent();
    const undeployed = await newAgent();
    const someoneElses = await newAgent(await freshUser(system, 'other'));
    const fireTime = new Date().toISOString();
    const outcomes = await startBatch([
      fireOf(undeployed, fireTime),
      fireOf(deployed, fireTime),
      fireOf(randomUUID(), fireTime),
      fireOf(someoneElses, fireTime),
    ]);
    expect(outcomes[0]).toMatchObject({ agent_id: undeployed, refused: { status: 400 } });
    expect(outcomes[1]).toMatchObject({ agent_id: deployed, run_id: expect.any(String) });
    expect(outcomes[2]).toMatchObject({ refused: { status: 404 } });
    expect(outcomes[3]).toMatchObject({ agent_id: someoneElses, refused: { status: 404 } });
    expect(await scheduledRuns(deployed)).toHaveLength(1);
    expect(await scheduledRuns(undeployed)).toHaveLength(0);
  });

  it('numbers the runs of one agent in fire-time order after its earlier runs', async () => {
    const agentId = await deployedAgent();
    const later = fireOf(agentId, new Date(Date.now() + 1000).toISOString());
    const earlier = fireOf(agentId, new Date(Date.now()).toISOString());
    const outcomes = await startBatch([later, earlier]);
    const runs = await scheduledRuns(agentId);
    const numberOf = (runId: string) => runs.find((r: { run_id: string }) => r.run_id === runId).run_number;
    expect(numberOf(runIdOf(outcomes[1]))).toBe(2);
    expect(numberOf(runIdOf(outcomes[0]))).toBe(3);
  });
});

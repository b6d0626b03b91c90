import { Client } from 'pg';
import { http } from './support/http';
import { TestRuntime } from './support/test-runtime';
import { TestSystem } from './support/test-system';
import { eventually } from './support/eventually';

const KEY = 'overlap-bootstrap-key-0123456789a';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * overlap `skip`: the scheduler knows from run end events that its last run
 * finished, and asks runs-service only when its record says a run is unfinished.
 */
describe('Schedule overlap (skip) from the scheduler\'s own record of its run', () => {
  let system: TestSystem;
  let runtime: TestRuntime;
  let pg: Client;
  const held = new Map<string, () => void>();

  beforeAll(async () => {
    // Build runs complete at once (the agent deploys); other runs go on until the test releases them.
    runtime = await TestRuntime.start();
    runtime.handler = async (reply, dispatch) => {
      if (dispatch.body.run_mode === 'run') await new Promise<void>((release) => held.set(dispatch.body.run_id, release));
      reply.line({ type: 'completed', outcome: 'success' });
      reply.end();
    };
    system = await TestSystem.start({ bootstrapApiKey: KEY, runsEnv: { AGENT_RUNTIME_URL: runtime.url } });
    pg = new Client({ connectionString: system.infra.databaseUrl });
    await pg.connect();
  });
  afterAll(async () => {
    for (const release of held.values()) release();
    await pg.end();
    await system.stop();
    await runtime.close();
  });

  const base = () => system.url();
  const scheduledRuns = async (agentId: string) =>
    (await http(base(), 'GET', `/v1/agents/${agentId}/runs?page_size=1000`, { key: KEY })).body.runs.filter(
      (r: { run_kind: string }) => r.run_kind === 'schedule',
    ) as { run_id: string; is_finished: boolean }[];
  const activeRunOf = async (agentId: string): Promise<string | null> =>
    (await pg.query('SELECT active_run_id FROM scheduler.schedules WHERE agent_id = $1', [agentId])).rows[0].active_run_id;
  /** Lets a held run finish, once the runtime has its dispatch (a run is listed before it is dispatched). */
  const release = async (runId: string) => {
    await eventually('the run held by the runtime', async () => held.has(runId), Boolean, 15_000);
    held.get(runId)!();
    held.delete(runId);
  };

  async function deployedAgent(): Promise<string> {
    const agentId = (await http(base(), 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
    await http(base(), 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { run_mode: 'build' } });
    await eventually(
      'the agent deployed',
      async () => (await http(base(), 'GET', `/v1/agents/${agentId}`, { key: KEY })).body.agent.deployment_state,
      (state) => state === 'deployed',
      15_000,
    );
    return agentId;
  }

  it('skips fires while its run is unfinished, forgets the run when it ends, and fires again', async () => {
    const agentId = await deployedAgent();
    await http(base(), 'PUT', `/v1/agents/${agentId}/schedule`, { key: KEY, body: { cron: '* * * * * ? *', overlap: 'skip' } });
    const [first] = await eventually('the first scheduled run', () => scheduledRuns(agentId), (runs) => runs.length === 1, 15_000);
    await eventually('the first run active', () => activeRunOf(agentId), (active) => active === first.run_id, 15_000);

    await sleep(3000);
    expect(await scheduledRuns(agentId)).toHaveLength(1);

    await http(base(), 'POST', `/v1/agents/${agentId}/schedule/pause`, { key: KEY });
    await release(first.run_id);
    // The run's end event clears the record: the next fire needs no question to runs-service.
    await eventually('no run active', () => activeRunOf(agentId), (active) => active === null, 15_000);

    await http(base(), 'POST', `/v1/agents/${agentId}/schedule/resume`, { key: KEY });
    const runs = await eventually('the second scheduled run', () => scheduledRuns(agentId), (r) => r.length === 2, 15_000);
    expect(runs.filter((r) => !r.is_finished)).toHaveLength(1);
    await http(base(), 'DELETE', `/v1/agents/${agentId}/schedule`, { key: KEY });
  });

  it('asks runs-service when its record names a run, and fires if that run has in fact finished', async () => {
    const agentId = await deployedAgent();
    await http(base(), 'PUT', `/v1/agents/${agentId}/schedule`, { key: KEY, body: { cron: '* * * * * ? *', overlap: 'skip' } });
    const [first] = await eventually('the first scheduled run', () => scheduledRuns(agentId), (runs) => runs.length === 1, 15_000);
    await http(base(), 'POST', `/v1/agents/${agentId}/schedule/pause`, { key: KEY });
    await release(first.run_id);
    await eventually('no run active', () => activeRunOf(agentId), (active) => active === null, 15_000);

    // As if the end event had not arrived yet: the record still names the finished run.
    await pg.query('UPDATE scheduler.schedules SET active_run_id = $1 WHERE agent_id = $2', [first.run_id, agentId]);
    await http(base(), 'POST', `/v1/agents/${agentId}/schedule/resume`, { key: KEY });
    await eventually('the second scheduled run', () => scheduledRuns(agentId), (r) => r.length === 2, 15_000);
    await http(base(), 'DELETE', `/v1/agents/${agentId}/schedule`, { key: KEY });
  });
});

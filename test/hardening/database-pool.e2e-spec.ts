/** @run-alone it bounds another tenant's latency under attack: a test file running beside it would skew that latency. */
import { eventually } from '../support/eventually';
import { http } from '../support/http';
import { TestRuntime } from '../support/test-runtime';
import { TestSystem } from '../support/test-system';
import { User, freshUser } from '../support/test-users';
import { expectVictimUnharmed, victimUnderAttack } from '../support/victim-latency';

const BUILD_RUNS = 70;

/**
 * Attack 1 of SECURITY.md: build runs finishing at once wedged agents-service. Each build run's
 * instructions are written by agents-service (16 at a time) in a transaction that locked the agent and
 * then asked the pool for a second connection; a pool full of such transactions waited for one another.
 * Here agents-service runs as in production (its default pool of 10; a nested connection is logged,
 * not refused), a runtime holds every build run until all are executing and then finishes them
 * together, and another user's agent reads are timed. On the old code they wait out the pool's connect
 * timeout (p99 about 5 s) and no agent is deployed.
 */
describe('Build runs finishing at once', () => {
  let system: TestSystem;
  let runtime: TestRuntime;
  let base: string;
  let attacker: User;
  let victim: User;
  let victimAgent: string;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    runtime = await TestRuntime.start();
    runtime.handler = async (reply) => {
      reply.line({ type: 'step', title: 'waiting for the others' });
      await Promise.race([released, reply.closed]);
      reply.line({ type: 'instructions', content: 'Report failures.' });
      reply.line({ type: 'completed', outcome: 'success' });
      reply.end();
    };
    system = await TestSystem.start({
      agentsEnv: { DATABASE_NESTED_CONNECTIONS: 'log', DATABASE_POOL_SIZE: '10' },
      runsEnv: {
        AGENT_RUNTIME_URL: runtime.url,
        RUN_CONCURRENCY_PER_USER: '0',
        RUN_CONCURRENCY_PER_AGENT: '0',
        RUN_WORKER_CONCURRENCY: String(BUILD_RUNS),
      },
    });
    base = system.url();
    [attacker, victim] = await Promise.all([freshUser(system, 'builder'), freshUser(system, 'bystander')]);
    victimAgent = (await http(base, 'POST', '/v1/agents', { key: victim.key, body: {} })).body.agent.agent_id;
  });
  afterAll(async () => {
    release();
    await system.stop();
    await runtime.close();
  });

  it(`leaves agents-service answering while ${BUILD_RUNS} build runs finish together, and deploys every agent`, async () => {
    const agents: string[] = [];
    for (let i = 0; i < BUILD_RUNS; i += 10) {
      const created = await Promise.all(Array.from({ length: 10 }, () => http(base, 'POST', '/v1/agents', { key: attacker.key, body: {} })));
      agents.push(...created.map((res) => res.body.agent.agent_id as string));
    }
    for (let i = 0; i < BUILD_RUNS; i += 10) {
      const started = await Promise.all(agents.slice(i, i + 10).map((id) => http(base, 'POST', `/v1/agents/${id}/runs`, { key: attacker.key, body: { run_mode: 'build' } })));
      expect(started.map((res) => res.status)).toEqual(started.map(() => 201));
    }
    await eventually('every build run executing', () => new Set(runtime.dispatches.map((d) => d.body.run_id)).size, (n) => n === BUILD_RUNS);

    const readVictimAgent = async () => (await http(base, 'GET', `/v1/agents/${victimAgent}`, { key: victim.key }).catch(() => ({ status: 0 }))).status;
    const result = await victimUnderAttack(readVictimAgent, async () => {
      release();
      // One list read a second: the attack is the build runs finishing, not a flood of reads.
      return eventually(
        'every build run to deploy its agent',
        async () => (await http(base, 'GET', '/v1/agents?limit=100', { key: attacker.key })).body.agents.map((a: { deployment_state: string }) => a.deployment_state),
        (states: string[]) => states.length === BUILD_RUNS && states.every((state) => state === 'deployed'),
        45_000,
        1_000,
      );
    }, { durationMs: 4_000 });

    expectVictimUnharmed(result);
  }, 150_000);
});

import { AgentDeletedEvent, QueueNames } from '@aas/contracts';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { http } from './support/http';
import { TestSystem } from './support/test-system';
import { eventually } from './support/eventually';

const BOOTSTRAP_KEY = 'agent-deleted-bootstrap-key-0123';
const CONSUMER_QUEUES = [QueueNames.RunsEvents, QueueNames.SchedulerEvents, QueueNames.WebhooksEvents];

describe('agent.deleted is published durably to every consuming service', () => {
  let system: TestSystem;
  let connection: Redis;
  let queues: Queue[];

  beforeAll(async () => {
    system = await TestSystem.start({ bootstrapApiKey: BOOTSTRAP_KEY });
    connection = new Redis(system.infra.redisUrl, { maxRetriesPerRequest: null });
    queues = CONSUMER_QUEUES.map((name) => new Queue(name, { connection, prefix: system.infra.redisPrefix }));
  });
  afterAll(async () => {
    await Promise.all(queues.map((q) => q.close()));
    connection.disconnect();
    await system.stop();
  });

  async function deletedAgentIds(queue: Queue): Promise<string[]> {
    const jobs = await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']);
    return jobs.filter((j) => j.name === 'agent.deleted').map((j) => (j.data as AgentDeletedEvent).agent_id);
  }

  it('for an agent deleted directly and for each agent of a deleted workspace, once per queue', async () => {
    const single = (await http(system.url(), 'POST', '/v1/agents', { key: BOOTSTRAP_KEY, body: {} })).body.agent.agent_id;
    const workspace = (await http(system.url(), 'POST', '/v1/workspaces', { key: BOOTSTRAP_KEY, body: { name: 'doomed' } })).body
      .workspace.workspace_id;
    const inWorkspace: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await http(system.url(), 'POST', '/v1/agents', { key: BOOTSTRAP_KEY, body: { workspace_id: workspace } });
      inWorkspace.push(res.body.agent.agent_id);
    }
    const survivor = (await http(system.url(), 'POST', '/v1/agents', { key: BOOTSTRAP_KEY, body: {} })).body.agent.agent_id;

    expect((await http(system.url(), 'DELETE', `/v1/agents/${single}`, { key: BOOTSTRAP_KEY })).status).toBe(204);
    expect((await http(system.url(), 'DELETE', `/v1/workspaces/${workspace}`, { key: BOOTSTRAP_KEY })).body).toEqual({
      deleted: true,
      error: null,
    });

    const expected = [single, ...inWorkspace].sort();
    for (const queue of queues) {
      await eventually('an agent.deleted event per agent in the queue', async () => (await deletedAgentIds(queue)).length >= expected.length, Boolean, 10_000);
      const ids = await deletedAgentIds(queue);
      expect(ids.sort()).toEqual(expected);
      expect(ids).not.toContain(survivor);
    }
  });
});

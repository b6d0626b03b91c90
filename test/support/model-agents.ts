import { eventually } from './eventually';
import { FakeModelServer } from './fake-model-server';
import { http } from './http';

/** Runs through the gateway against a runtime that talks to a FakeModelServer. */
export class ModelAgents {
  constructor(
    private readonly base: string,
    private readonly key: string,
    private readonly fake: FakeModelServer,
  ) {}

  /** Starts a run and waits for its end: the run and its events. */
  async runToEnd(agentId: string, body: object): Promise<{ run: any; events: Record<string, any>[] }> {
    const started = await http(this.base, 'POST', `/v1/agents/${agentId}/runs`, { key: this.key, body });
    expect(started.status).toBe(201);
    const runId = started.body.run.run_id;
    const run = await this.finished(agentId, runId);
    return { run, events: await this.events(agentId, runId) };
  }

  finished(agentId: string, runId: string, ms?: number): Promise<any> {
    return eventually(`run ${runId} to finish`, async () => (await http(this.base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: this.key })).body.run, (r) => r?.is_finished === true, ms);
  }

  async events(agentId: string, runId: string): Promise<Record<string, any>[]> {
    return (await http(this.base, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: this.key })).body.events.map((e: { event: object }) => e.event);
  }

  /** A new agent, deployed by a build run whose write_agent call the fake model makes with `content` and `plan_steps`. */
  async deployed(label: string, content: string, plan_steps: object[] = []): Promise<string> {
    const agentId = (await http(this.base, 'POST', '/v1/agents', { key: this.key, body: {} })).body.agent.agent_id as string;
    const marker = this.fake.script(`[build ${label}]`, {
      toolCalls: [{ name: 'write_agent', arguments: { name: label, explanation: `The ${label} agent.`, title: label, content, plan_steps } }],
    });
    const built = await this.runToEnd(agentId, { run_mode: 'build', user_message: `${marker} build it` });
    expect(built.run.status).toBe('completed');
    // The deployment and the instructions reach agents-service by event, shortly after the build run.
    await eventually(
      `${label} deployed with its instructions`,
      async () => [
        (await http(this.base, 'GET', `/v1/agents/${agentId}`, { key: this.key })).body.agent.deployment_state,
        JSON.stringify((await http(this.base, 'GET', `/v1/agents/${agentId}/instructions`, { key: this.key })).body),
      ],
      ([state, instructions]) => state === 'deployed' && instructions.includes(content.slice(0, 40)),
    );
    return agentId;
  }
}

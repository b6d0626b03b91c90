import { eventually } from './support/eventually';
import { offlineOpenApiDocument } from '../apps/api-gateway/src/openapi-offline';
import { expectProblem, http } from './support/http';
import { redoclyProblems } from './support/openapi-lint';
import { TestSystem, urlOf } from './support/test-system';
import { freshUser } from './support/test-users';

describe('Health and the OpenAPI document', () => {
  let system: TestSystem;

  beforeAll(async () => {
    // A request to the service stopped by the last test times out after this.
    system = await TestSystem.start({ gatewayEnv: { RPC_TIMEOUT_MS: '1500' } });
  });
  afterAll(() => system.stop());

  it('serves /healthz and /readyz without a key on the gateway and every service', async () => {
    const services = [...system.agents, system.others.runs!, system.others.scheduler!, system.others.webhooks!];
    for (const base of [system.url(), ...services.map(urlOf)]) {
      expect((await http(base, 'GET', '/healthz')).status).toBe(200);
      const ready = await http(base, 'GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(Object.values(ready.body.checks).every((s) => s === 'up')).toBe(true);
    }
    // The gateway's readiness is its own; the services behind it are in the deep status.
    const gatewayReady = await http(system.url(), 'GET', '/readyz');
    expect(Object.keys(gatewayReady.body.checks).sort()).toEqual(['process', 'redis']);
    const deep = await http(system.url(), 'GET', '/readyz/deep');
    expect(deep.status).toBe(200);
    expect(deep.body).toEqual({
      ready: true,
      checks: { 'agents-service': 'up', redis: 'up', 'runs-service': 'up', 'scheduler-service': 'up', 'webhook-delivery': 'up' },
    });
    expect((await http(system.url(), 'GET', '/readyz/deep')).status).toBe(200);
  });

  it('publishes OpenAPI 3.1 with the API-key scheme and ProblemDetail on every error', async () => {
    const res = await http(system.url(), 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.components.securitySchemes['x-api-key']).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(doc.security).toEqual([{ 'x-api-key': [] }]);
    const operations: Record<string, string[]> = {
      '/v1/me': ['get'],
      '/api/public/v1/access-api-keys': ['get', 'post'],
      '/api/public/v1/access-api-keys/{key_id}': ['delete'],
      '/v1/agents': ['get', 'post'],
      '/v1/agents/{agent_id}': ['get', 'patch', 'delete'],
      '/v1/tools': ['get'],
      '/v1/agents/{agent_id}/move': ['post'],
      '/v1/workspaces': ['get', 'post'],
      '/v1/workspaces/{workspace_id}': ['put', 'delete'],
      '/v1/workspaces/reorder': ['post'],
      '/v1/agents/{agent_id}/instructions': ['get', 'put'],
      '/v1/agents/{agent_id}/instructions/history': ['get'],
      '/v1/agents/{agent_id}/runs': ['get', 'post'],
      '/v1/agents/{agent_id}/runs/{run_id}': ['get', 'delete'],
      '/v1/agents/{agent_id}/runs/{run_id}/cancel': ['post'],
      '/v1/agents/{agent_id}/runs/{run_id}/events': ['get'],
      '/v1/agents/{agent_id}/runs/{run_id}/events/stream': ['get'],
      '/v1/agents/{agent_id}/schedule': ['get', 'put', 'delete'],
      '/v1/agents/{agent_id}/schedule/pause': ['post'],
      '/v1/agents/{agent_id}/schedule/resume': ['post'],
      '/v1/schedules': ['get'],
      '/v1/schedules/preview': ['post'],
      '/v1/console/setup': ['get', 'post'],
      '/v1/console/login': ['post'],
      '/v1/console/logout': ['post'],
      '/v1/console/session': ['get'],
      '/v1/agents/{agent_id}/webhooks': ['get', 'post'],
      '/v1/agents/{agent_id}/webhooks/{webhook_id}': ['get', 'patch', 'delete'],
      '/v1/agents/{agent_id}/webhooks/{webhook_id}/deliveries': ['get'],
      '/v1/agents/{agent_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver': ['post'],
    };
    for (const [path, methods] of Object.entries(operations)) {
      expect({ path, methods: Object.keys(doc.paths[path] ?? {}).sort() }).toEqual({ path, methods: [...methods].sort() });
    }
    const successSchema = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status]?.content?.['application/json']?.schema?.$ref;
    expect(successSchema('/v1/agents', 'get', '200')).toBe('#/components/schemas/AgentListResponse');
    expect(successSchema('/v1/agents', 'post', '201')).toBe('#/components/schemas/AgentResponse');
    expect(successSchema('/v1/agents/{agent_id}', 'patch', '200')).toBe('#/components/schemas/AgentResponse');
    expect(successSchema('/v1/tools', 'get', '200')).toBe('#/components/schemas/ToolListResponse');
    expect(doc.paths['/v1/tools'].get.responses['503']).toBeDefined();
    expect(doc.paths['/v1/agents/{agent_id}'].delete.responses['204']).toBeDefined();
    expect(successSchema('/v1/workspaces', 'get', '200')).toBe('#/components/schemas/WorkspaceListResponse');
    expect(successSchema('/v1/agents/{agent_id}/instructions/history', 'get', '200')).toBe(
      '#/components/schemas/InstructionHistoryResponse',
    );
    expect(successSchema('/v1/agents/{agent_id}/runs', 'get', '200')).toBe('#/components/schemas/RunListResponse');
    expect(successSchema('/v1/agents/{agent_id}/schedule', 'get', '200')).toBe('#/components/schemas/ScheduleResponse');
    expect(successSchema('/v1/agents/{agent_id}/webhooks', 'post', '201')).toBe('#/components/schemas/CreatedWebhookDto');
    expect(doc.paths['/v1/agents/{agent_id}/runs/{run_id}/events/stream'].get.responses['200'].content).toHaveProperty(
      'text/event-stream',
    );
    expect(doc.components.schemas.RunEventItem.required).toEqual(expect.arrayContaining(['event_index', 'recorded_at', 'event']));
    const agentSchema = doc.components.schemas.AgentDto;
    expect(Object.keys(agentSchema.properties)).toEqual(
      expect.arrayContaining(['agent_id', 'unread', 'latest_run_id', 'deployment_state', 'deployed_at']),
    );
    expect(agentSchema.required).toEqual(expect.arrayContaining(['agent_id', 'unread']));
    expect(doc.paths['/healthz']).toBeUndefined();
    expect(doc.paths['/readyz/deep']).toBeUndefined();
    // The creations a quota limits document its 422 (quota-exceeded).
    for (const [path, method] of [
      ['/api/public/v1/access-api-keys', 'post'],
      ['/v1/agents', 'post'],
      ['/v1/workspaces', 'post'],
      ['/v1/agents/{agent_id}/instructions', 'put'],
      ['/v1/agents/{agent_id}/webhooks', 'post'],
    ]) {
      expect({ path, method, has422: '422' in doc.paths[path][method].responses }).toEqual({ path, method, has422: true });
    }
    expect(doc.components.schemas.ProblemDetailDto.properties).toEqual(expect.objectContaining({ quota: expect.anything(), limit: expect.anything() }));
    // The console's sign-in routes need no key; its session is a cookie scheme, never the API's default.
    expect(doc.components.securitySchemes['console-session']).toEqual(expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'aas_session' }));
    expect(doc.paths['/v1/console/login'].post.security).toEqual([]);
    expect(doc.paths['/v1/console/setup'].post.security).toEqual([]);
    expect(doc.paths['/v1/console/session'].get.security).toEqual([{ 'console-session': [] }]);
    expect(doc.paths['/v1/schedules/preview'].post.security).toBeUndefined();
    expect(doc.components.schemas.ProblemDetailDto.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail']),
    );
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(op.responses)) {
          if (status.startsWith('2')) continue;
          const schema = response.content?.['application/problem+json']?.schema;
          expect({ at: `${method} ${path} ${status}`, ref: schema?.$ref }).toEqual({
            at: `${method} ${path} ${status}`,
            ref: '#/components/schemas/ProblemDetailDto',
          });
        }
      }
    }
  });

  it("is clean under Redocly's recommended ruleset, errors and warnings alike, with a base URL and a license", async () => {
    const doc = (await http(system.url(), 'GET', '/openapi.json')).body;
    expect(doc.servers).toEqual([{ url: '/' }]);
    expect(doc.info.license).toEqual({ name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' });
    // Among the rules: every operation has an operationId, a summary and a 4XX response; servers is not empty.
    expect(redoclyProblems(doc)).toEqual([]);
  });

  it('serves the document libs/sdk is generated from (built offline, without Redis or services)', async () => {
    const served = (await http(system.url(), 'GET', '/openapi.json')).body;
    expect(served).toEqual(JSON.parse(JSON.stringify(await offlineOpenApiDocument())));
  });

  it('serves an interactive docs page', async () => {
    const res = await http(system.url(), 'GET', '/docs');
    expect(res.status).toBe(200);
    expect(String(res.body)).toContain('swagger');
  });

  it('stays ready when a service behind it is down, while the deep status reports that service', async () => {
    await system.others.scheduler!.close();
    system.others.scheduler = undefined;
    // The deep status is cached for a second: wait for an answer computed after the stop.
    const deep = await eventually(
      'the deep status to report the stopped service',
      () => http(system.url(), 'GET', '/readyz/deep'),
      (res) => res.status === 503,
    );
    expectProblem(deep, 503);
    expect(deep.body.detail).toContain('scheduler-service');
    expect(deep.body.detail).not.toContain('agents-service');

    const ready = await http(system.url(), 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ ready: true, checks: { process: 'up', redis: 'up' } });
    // A request that needs the stopped service gets its Problem Details from a ready gateway.
    const user = await freshUser(system, 'health');
    expectProblem(await http(system.url(), 'GET', '/v1/schedules', { key: user.key }), 504);
    expect((await http(system.url(), 'GET', '/v1/me', { key: user.key })).status).toBe(200);
  });
});

import { expectProblem, http } from './support/http';
import { TestSystem, urlOf } from './support/test-system';

describe('Health and the OpenAPI document', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start();
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
    const gatewayReady = await http(system.url(), 'GET', '/readyz');
    expect(Object.keys(gatewayReady.body.checks).sort()).toEqual(
      ['agents-service', 'redis', 'runs-service', 'scheduler-service', 'webhook-delivery'].sort(),
    );
  });

  it('publishes OpenAPI 3.1 with the API-key scheme and ProblemDetail on every error', async () => {
    const res = await http(system.url(), 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.components.securitySchemes['x-api-key']).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(doc.security).toEqual([{ 'x-api-key': [] }]);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/me', '/api/public/v1/access-api-keys', '/api/public/v1/access-api-keys/{key_id}']),
    );
    expect(doc.paths['/healthz']).toBeUndefined();
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

  it('serves an interactive docs page', async () => {
    const res = await http(system.url(), 'GET', '/docs');
    expect(res.status).toBe(200);
    expect(String(res.body)).toContain('swagger');
  });

  it('reports not ready, naming the service, when one is down', async () => {
    await system.others.scheduler!.close();
    system.others.scheduler = undefined;
    const res = await http(system.url(), 'GET', '/readyz');
    expectProblem(res, 503);
    expect(res.body.detail).toContain('scheduler-service');
  });
});

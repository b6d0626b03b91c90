import { validateEnv } from '@aas/platform';
import { ClassConstructor } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import { RuntimeEnv } from '../../../apps/agent-runtime/src/config/runtime.env';
import { AGENTS_SERVICE } from '../../../apps/agents-service/src/agents-service.definition';
import { GatewayEnv } from '../../../apps/api-gateway/src/config/gateway.env';
import { RUNS_SERVICE } from '../../../apps/runs-service/src/runs-service.definition';
import { SCHEDULER_SERVICE } from '../../../apps/scheduler-service/src/scheduler-service.definition';
import { WEBHOOKS_SERVICE } from '../../../apps/webhook-delivery/src/webhook-delivery.definition';

export interface AppSettings {
  /** The app's name: its Deployment, compose service and dist/apps folder. */
  name: string;
  /** The class its settings are validated with at start-up; its properties are the env vars it reads. */
  env: ClassConstructor<object>;
  /** The setting holding the port /healthz and /readyz answer on. */
  healthPortSetting: 'PORT' | 'HEALTH_PORT';
  /** Whether `main.js migrate` applies a schema of its own. */
  hasSchema: boolean;
  /** Whether it uses Redis (and so the datastores' network policy lets it in); the agent runtime uses none. */
  usesDatastores: boolean;
}

/**
 * The six apps and their env classes: the gateway's as api-gateway.module.ts uses it, the
 * back-end apps' from their service definitions (what `start` and `migrate` validate), the agent
 * runtime's (stateless: no schema, no Redis; its dispatch port is its health port).
 */
export const APPS: readonly AppSettings[] = [
  { name: 'api-gateway', env: GatewayEnv, healthPortSetting: 'PORT', hasSchema: false, usesDatastores: true },
  ...[AGENTS_SERVICE, RUNS_SERVICE, SCHEDULER_SERVICE, WEBHOOKS_SERVICE].map((service) => ({
    name: service.name,
    env: service.env as ClassConstructor<object>,
    healthPortSetting: 'HEALTH_PORT' as const,
    hasSchema: true,
    usesDatastores: true,
  })),
  { name: 'agent-runtime', env: RuntimeEnv, healthPortSetting: 'PORT', hasSchema: false, usesDatastores: false },
];

/** The apps with a schema, in the order the compose `migrate` service and the k8s Job migrate them. */
export const MIGRATED_APPS = APPS.filter((a) => a.hasSchema);

/** Every env var an env class declares (its validated properties, inherited ones included). */
export function settingNames(env: ClassConstructor<object>): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(env, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))].sort();
}

/** The settings that fail validation when nothing is set: they have no usable default. */
export function requiredSettingNames(env: ClassConstructor<object>): string[] {
  return [...new Set(validateSync(new env()).map((e) => e.property))].sort();
}

/** Each declared setting's default, as the string an env var would carry; undefined when it has none. */
export function settingDefaults(env: ClassConstructor<object>): Record<string, string | undefined> {
  const instance = new env() as Record<string, unknown>;
  return Object.fromEntries(
    settingNames(env).map((name) => {
      const value = instance[name];
      return [name, value === undefined ? undefined : Array.isArray(value) ? value.join(',') : String(value)];
    }),
  );
}

/** The start-up validation an app runs on these env vars: undefined when it passes, else its message. */
export function settingsError(env: ClassConstructor<object>, values: Record<string, string>): string | undefined {
  try {
    validateEnv(env, values);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

export function appNamed(name: string): AppSettings {
  const app = APPS.find((a) => a.name === name);
  if (!app) throw new Error(`no app ${name}`);
  return app;
}

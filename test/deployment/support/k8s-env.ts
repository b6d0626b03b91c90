import { K8sObject, ofKind } from './k8s-objects';

/** The ConfigMaps and Secrets env vars can be taken from, by name, as string maps. */
export interface EnvSources {
  configMaps: Map<string, Record<string, string>>;
  secrets: Map<string, Record<string, string>>;
}

export function envSourcesOf(objects: readonly K8sObject[]): EnvSources {
  return {
    configMaps: new Map(ofKind(objects, 'ConfigMap').map((c) => [c.metadata.name, { ...c.data }])),
    secrets: new Map(
      ofKind(objects, 'Secret').map((s) => {
        const data = Object.entries<string>(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]);
        // As the API server does, stringData wins over data.
        return [s.metadata.name, { ...Object.fromEntries(data), ...s.stringData }];
      }),
    ),
  };
}

/**
 * The environment a container starts with, as the kubelet builds it: envFrom in order, then env
 * (which wins). A reference to a ConfigMap, Secret or key that is not there throws, even when
 * marked optional: the manifests must ship every key an app may read.
 */
export function resolveContainerEnv(container: any, sources: EnvSources): Record<string, string> {
  const where = `container ${container.name}`;
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const [kind, ref] = from.configMapRef ? ['ConfigMap', from.configMapRef] : ['Secret', from.secretRef];
    if (!ref) throw new Error(`${where}: envFrom entry with neither configMapRef nor secretRef`);
    const source = (kind === 'ConfigMap' ? sources.configMaps : sources.secrets).get(ref.name);
    if (!source) throw new Error(`${where}: envFrom names ${kind} ${ref.name}, which is not there`);
    for (const [key, value] of Object.entries(source)) env[`${from.prefix ?? ''}${key}`] = value;
  }
  for (const entry of container.env ?? []) {
    if (entry.valueFrom === undefined) {
      env[entry.name] = entry.value ?? '';
      continue;
    }
    const { configMapKeyRef, secretKeyRef } = entry.valueFrom;
    const [kind, ref] = configMapKeyRef ? ['ConfigMap', configMapKeyRef] : ['Secret', secretKeyRef];
    if (!ref) throw new Error(`${where}: ${entry.name} comes from neither a ConfigMap nor a Secret key`);
    const source = (kind === 'ConfigMap' ? sources.configMaps : sources.secrets).get(ref.name);
    if (!source) throw new Error(`${where}: ${entry.name} names ${kind} ${ref.name}, which is not there`);
    if (!(ref.key in source)) throw new Error(`${where}: ${entry.name} names key ${ref.key} of ${kind} ${ref.name}, which is not there`);
    env[entry.name] = source[ref.key];
  }
  return env;
}

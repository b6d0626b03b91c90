import { envSourcesOf, EnvSources } from './k8s-env';
import { K8sObject, kustomizeBuild } from './k8s-objects';

/** What each kustomization under k8s/ must render, beyond what every one must. */
export interface KustomizationCase {
  dir: string;
  /**
   * Where `aas-secrets` comes from: rendered (the base's EXAMPLE values), or made by the operator
   * out of band, with the keys of the base's example (so example values never reach production).
   */
  secrets: 'rendered' | 'external';
  /** What scales webhook-delivery: the CPU HorizontalPodAutoscaler, or KEDA on its queue. */
  webhookScaler: 'HorizontalPodAutoscaler' | 'ScaledObject';
  /** Bounds on each app's replica count (its Deployment's, or its autoscaler's minimum). */
  replicas?: { min: number; max?: number };
  /** The image every pod runs. */
  image: RegExp;
  /** Settings every app that reads them must get. */
  settings: Record<string, string>;
}

export const KUSTOMIZATIONS: readonly KustomizationCase[] = [
  {
    dir: 'k8s/base',
    secrets: 'rendered',
    webhookScaler: 'HorizontalPodAutoscaler',
    image: /^agent-automation-service:[\w.-]+$/,
    settings: { LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' },
  },
  {
    dir: 'k8s/overlays/dev',
    secrets: 'rendered',
    webhookScaler: 'HorizontalPodAutoscaler',
    replicas: { min: 1, max: 1 },
    image: /^agent-automation-service:local$/,
    settings: { LOG_LEVEL: 'debug', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
  },
  {
    dir: 'k8s/overlays/prod',
    secrets: 'external',
    webhookScaler: 'HorizontalPodAutoscaler',
    replicas: { min: 2 },
    image: /^[\w.-]+(:\d+)?\/[\w./-]+:[\w.-]+$/,
    settings: { LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' },
  },
  {
    dir: 'k8s/overlays/prod-keda',
    secrets: 'external',
    webhookScaler: 'ScaledObject',
    replicas: { min: 2 },
    image: /^[\w.-]+(:\d+)?\/[\w./-]+:[\w.-]+$/,
    settings: { LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' },
  },
];

/**
 * The ConfigMaps and Secrets a kustomization's containers read: its own, plus, when the operator
 * makes `aas-secrets`, the keys the base's example Secret documents for it.
 */
export function envSourcesFor(c: KustomizationCase, objects: readonly K8sObject[]): EnvSources {
  const sources = envSourcesOf(objects);
  if (c.secrets === 'external') {
    for (const [name, data] of envSourcesOf(kustomizeBuild('k8s/base')).secrets) {
      if (!sources.secrets.has(name)) sources.secrets.set(name, data);
    }
  }
  return sources;
}

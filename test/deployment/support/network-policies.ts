import { K8sObject, Labels, ofKind, selects } from './k8s-objects';

/** The labels of the namespace the manifests are applied to (an example name). */
export const SAME_NAMESPACE_LABELS: Labels = { 'kubernetes.io/metadata.name': 'agent-automation' };

/** Where a connection comes from, as NetworkPolicy peers see it. */
export type Source =
  | { kind: 'external' }
  /** A pod; `namespace` 'same' is the namespace the manifests are applied to. */
  | { kind: 'pod'; namespace: 'same' | { labels: Labels }; labels: Labels };

/** The pod a connection goes to, with its named container ports. */
export interface Target {
  labels: Labels;
  ports?: { name?: string; containerPort: number }[];
}

/** The NetworkPolicies that select a pod for ingress. */
export function ingressPoliciesFor(objects: readonly K8sObject[], labels: Labels): K8sObject[] {
  return ofKind(objects, 'NetworkPolicy').filter(
    (p) => (p.spec.policyTypes ?? ['Ingress']).includes('Ingress') && selectsPods(p.spec.podSelector, labels),
  );
}

/**
 * Whether the rendered NetworkPolicies (all in the manifests' namespace) let `source` connect to
 * `target` on `port` (a container port number), with the semantics of the Kubernetes API: a pod
 * no policy selects accepts everything; otherwise some rule of a selecting policy must match the
 * source (no `from`: any) and the port (no `ports`: any).
 */
export function admits(objects: readonly K8sObject[], target: Target, source: Source, port: number): boolean {
  const policies = ingressPoliciesFor(objects, target.labels);
  if (policies.length === 0) return true;
  return policies.some((policy) =>
    (policy.spec.ingress ?? []).some(
      (rule: any) => portMatches(rule.ports, target, port) && (!rule.from?.length || rule.from.some((peer: any) => peerMatches(peer, source))),
    ),
  );
}

function portMatches(ports: any[] | undefined, target: Target, port: number): boolean {
  if (!ports?.length) return true;
  return ports.some((p) => {
    if (p.port === undefined) return true;
    if (typeof p.port === 'number') return p.port === port;
    return (target.ports ?? []).some((c) => c.name === p.port && c.containerPort === port);
  });
}

function peerMatches(peer: any, source: Source): boolean {
  if (peer.ipBlock) return true; // an address range: treated as reaching anyone, pod or not
  if (source.kind === 'external') return false;
  const namespaceLabels = source.namespace === 'same' ? SAME_NAMESPACE_LABELS : source.namespace.labels;
  const namespaceOk =
    peer.namespaceSelector === undefined ? source.namespace === 'same' : selectsPods(peer.namespaceSelector, namespaceLabels);
  const podOk = peer.podSelector === undefined || selectsPods(peer.podSelector, source.labels);
  return namespaceOk && podOk;
}

/** A label selector as NetworkPolicy reads it: an empty one selects everything. */
function selectsPods(selector: any, labels: Labels): boolean {
  if (!selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)) return true;
  return selects(selector, labels);
}

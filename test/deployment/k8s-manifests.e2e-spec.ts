import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { APPS, MIGRATED_APPS, settingNames } from './support/app-settings';
import { resolveContainerEnv } from './support/k8s-env';
import { checkWithK8sModels, modelFailures } from './support/k8s-models';
import {
  K8sObject,
  Labels,
  appContainerOf,
  containerPortFor,
  kustomizeBuild,
  named,
  ofKind,
  podSpecOf,
  quantity,
  selects,
} from './support/k8s-objects';
import { KUSTOMIZATIONS, envSourcesFor } from './support/kustomizations';
import { Source, Target, admits, ingressPoliciesFor } from './support/network-policies';
import { REPO_ROOT, dockerfileAppCommands } from './support/repo';

const PART_OF = 'agent-automation-service';
const IMAGE_USER = 1000; // the image's `node` user and group

function deployment(): K8sObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'broken' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'broken' } },
      template: { metadata: { labels: { app: 'broken' } }, spec: { containers: [{ name: 'app', image: 'x' }] } },
    },
  };
}

describe('the kubernetes-models check', () => {
  it('accepts a well-formed Deployment', () => {
    expect(checkWithK8sModels([deployment()])).toEqual([{ ok: true }]);
  });

  it('rejects a Deployment whose replicas is not an integer', () => {
    const broken = deployment();
    broken.spec.replicas = 'two';
    expect(checkWithK8sModels([broken])).toEqual([{ ok: false, error: expect.stringContaining('replicas must be integer') }]);
  });

  it('rejects a probe without a port', () => {
    const broken = deployment();
    broken.spec.template.spec.containers[0].livenessProbe = { httpGet: { path: '/healthz' } };
    expect(checkWithK8sModels([broken])[0]).toEqual({ ok: false, error: expect.stringContaining('port') });
  });

  it('rejects a ScaledObject without triggers', () => {
    const scaledObject = { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name: 'x' }, spec: { scaleTargetRef: { name: 'x' } } };
    expect(checkWithK8sModels([scaledObject])[0]).toEqual({ ok: false, error: expect.stringContaining('triggers') });
  });

  it('fails an object whose apiVersion and kind have no model', () => {
    const unknown = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    expect(checkWithK8sModels([unknown])[0]).toEqual({ ok: false, error: expect.stringContaining('no kubernetes-models model') });
  });
});

it('checks every overlay in k8s/overlays', () => {
  const overlays = readdirSync(join(REPO_ROOT, 'k8s/overlays'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `k8s/overlays/${d.name}`);
  expect(KUSTOMIZATIONS.map((k) => k.dir)).toEqual(expect.arrayContaining(overlays));
});

describe.each(KUSTOMIZATIONS)('$dir', (c) => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = kustomizeBuild(c.dir);
  });

  const deploymentOf = (app: string): K8sObject => {
    const found = named(objects, 'Deployment', app);
    if (!found) throw new Error(`no Deployment ${app}`);
    return found;
  };
  const envOf = (workload: K8sObject) => resolveContainerEnv(appContainerOf(workload), envSourcesFor(c, objects));
  const scalersOf = (app: string) =>
    objects.filter(
      (o) => (o.kind === 'HorizontalPodAutoscaler' || o.kind === 'ScaledObject') && o.spec?.scaleTargetRef?.name === app,
    );

  it('renders only objects that pass their kubernetes-models schema', () => {
    expect(objects.length).toBeGreaterThan(0);
    expect(modelFailures(objects)).toEqual([]);
  });

  it('has one Deployment per app and no other', () => {
    expect(ofKind(objects, 'Deployment').map((d) => d.metadata.name).sort()).toEqual(APPS.map((a) => a.name).sort());
  });

  it('runs every pod from the one image', () => {
    const workloads = [...ofKind(objects, 'Deployment'), ...ofKind(objects, 'Job')];
    const images = new Set(workloads.map((w) => appContainerOf(w).image));
    expect([...images]).toEqual([expect.stringMatching(c.image)]);
  });

  it('keeps the example Secret out of production', () => {
    const secrets = ofKind(objects, 'Secret');
    if (c.secrets === 'external') {
      expect(secrets).toEqual([]);
    } else {
      expect(secrets.map((s) => s.metadata.name)).toEqual(['aas-secrets']);
      expect(secrets[0].metadata.annotations?.['agent-automation-service/example-values']).toBe('true');
      expect(secrets[0].data).toBeUndefined();
    }
  });

  describe.each(APPS)('$name', (app) => {
    it('runs its app, as the Dockerfile names it', () => {
      expect(appContainerOf(deploymentOf(app.name)).command).toEqual(dockerfileAppCommands().get(app.name));
    });

    it('is labelled, and its selector picks exactly its own pods', () => {
      const d = deploymentOf(app.name);
      const podLabels = d.spec.template.metadata?.labels ?? {};
      for (const labels of [d.metadata.labels, podLabels]) {
        expect(labels).toMatchObject({ 'app.kubernetes.io/name': app.name, 'app.kubernetes.io/part-of': PART_OF });
        expect(labels?.['app.kubernetes.io/component']).toEqual(expect.any(String));
      }
      expect(selects(d.spec.selector, podLabels)).toBe(true);
      const others = ofKind(objects, 'Deployment').filter((o) => o !== d);
      expect(others.filter((o) => selects(d.spec.selector, o.spec.template.metadata?.labels))).toEqual([]);
    });

    it('has start-up, liveness and readiness probes on its health port', () => {
      const container = appContainerOf(deploymentOf(app.name));
      const healthPort = Number(envOf(deploymentOf(app.name))[app.healthPortSetting]);
      expect(healthPort).toBeGreaterThan(0);
      const probes = {
        startupProbe: container.startupProbe?.httpGet,
        livenessProbe: container.livenessProbe?.httpGet,
        readinessProbe: container.readinessProbe?.httpGet,
      };
      expect(probes).toEqual({
        startupProbe: expect.objectContaining({ path: '/healthz' }),
        livenessProbe: expect.objectContaining({ path: '/healthz' }),
        readinessProbe: expect.objectContaining({ path: '/readyz' }),
      });
      for (const probe of Object.values(probes)) expect(containerPortFor(container, probe.port)).toBe(healthPort);
      // /readyz waits up to 3 s for each dependency.
      expect(container.readinessProbe.timeoutSeconds).toBeGreaterThan(3);
    });

    it('requests and limits CPU and memory', () => {
      const { requests = {}, limits = {} } = appContainerOf(deploymentOf(app.name)).resources ?? {};
      for (const resource of ['cpu', 'memory']) {
        expect({ resource, request: requests[resource], limit: limits[resource] }).toEqual({
          resource,
          request: expect.anything(),
          limit: expect.anything(),
        });
        expect(quantity(limits[resource])).toBeGreaterThanOrEqual(quantity(requests[resource]));
      }
    });

    it('runs hardened: non-root, read-only root filesystem with /tmp, no privileges', () => {
      expect(hardeningProblems(deploymentOf(app.name))).toEqual([]);
    });

    it('has a termination grace period that outlasts its shutdown', () => {
      const d = deploymentOf(app.name);
      const grace = podSpecOf(d).terminationGracePeriodSeconds;
      expect(grace).toEqual(expect.any(Number));
      const env = envOf(d);
      const preStopSleep = preStopSleepSeconds(appContainerOf(d));
      // Queue workers get SHUTDOWN_DRAIN_MS to finish; then connections close.
      if (settingNames(app.env).includes('SHUTDOWN_DRAIN_MS')) {
        expect(grace * 1000).toBeGreaterThan(preStopSleep * 1000 + Number(env.SHUTDOWN_DRAIN_MS));
      }
      if (app.name === 'webhook-delivery') {
        // An in-flight delivery may take WEBHOOK_TIMEOUT_MS.
        expect(grace * 1000).toBeGreaterThan(Number(env.WEBHOOK_TIMEOUT_MS));
      }
      if (app.name === 'api-gateway') {
        // Endpoints are removed while it sleeps; then in-flight requests finish (each bounded by RPC_TIMEOUT_MS).
        expect(preStopSleep).toBeGreaterThan(0);
        expect(grace * 1000).toBeGreaterThan(preStopSleep * 1000 + Number(env.RPC_TIMEOUT_MS));
      }
    });

    it('has a PodDisruptionBudget of maxUnavailable 1, and only one', () => {
      const podLabels = deploymentOf(app.name).spec.template.metadata?.labels;
      const budgets = ofKind(objects, 'PodDisruptionBudget').filter((p) => selects(p.spec.selector, podLabels));
      expect(budgets.map((p) => p.spec.maxUnavailable)).toEqual([1]);
    });

    it('has at most one autoscaler, which then owns its replica count', () => {
      const scalers = scalersOf(app.name);
      expect(scalers.length).toBeLessThanOrEqual(1);
      // A `replicas` in the manifest would undo the autoscaler's count on every apply.
      if (scalers.length === 1) expect(deploymentOf(app.name).spec.replicas).toBeUndefined();
    });

    it('runs the replica count this kustomization asks for', () => {
      const [scaler] = scalersOf(app.name);
      const d = deploymentOf(app.name);
      const min = !scaler
        ? (d.spec.replicas ?? 1)
        : scaler.kind === 'HorizontalPodAutoscaler'
          ? (scaler.spec.minReplicas ?? 1)
          : (scaler.spec.minReplicaCount ?? 0);
      const max = !scaler ? min : scaler.kind === 'HorizontalPodAutoscaler' ? scaler.spec.maxReplicas : scaler.spec.maxReplicaCount;
      expect(max).toBeGreaterThanOrEqual(min);
      if (c.replicas) expect(min).toBeGreaterThanOrEqual(c.replicas.min);
      if (c.replicas?.max !== undefined) expect(min).toBeLessThanOrEqual(c.replicas.max);
    });

    it("gets this kustomization's settings", () => {
      const env = envOf(deploymentOf(app.name));
      const expected = Object.entries(c.settings).filter(([name]) => settingNames(app.env).includes(name));
      expect(expected.map(([name]) => [name, env[name]])).toEqual(expected);
    });
  });

  it('autoscales runs-service on CPU with an HPA, and webhook-delivery as this kustomization says', () => {
    const scaled = (app: string) => scalersOf(app).map((s) => s.kind);
    expect(scaled('runs-service')).toEqual(['HorizontalPodAutoscaler']);
    expect(scaled('webhook-delivery')).toEqual([c.webhookScaler]);
    for (const hpa of ofKind(objects, 'HorizontalPodAutoscaler')) {
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      expect(hpa.spec.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
      expect(hpa.spec.metrics).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'Resource', resource: expect.objectContaining({ name: 'cpu' }) }),
        ]),
      );
    }
  });

  it('exposes the gateway on port 80 and nothing on a port no pod listens on', () => {
    const gateway = deploymentOf('api-gateway');
    const gatewayPort = Number(envOf(gateway).PORT);
    const services = ofKind(objects, 'Service');
    const gatewayService = services.find((s) => selects({ matchLabels: s.spec.selector }, gateway.spec.template.metadata.labels));
    expect(gatewayService?.spec.ports).toEqual([expect.objectContaining({ port: 80 })]);
    expect(containerPortFor(appContainerOf(gateway), gatewayService!.spec.ports[0].targetPort)).toBe(gatewayPort);
    for (const service of services) {
      const pods = ofKind(objects, 'Deployment').filter((d) => selects({ matchLabels: service.spec.selector }, d.spec.template.metadata.labels));
      expect({ service: service.metadata.name, selects: pods.length }).toEqual({ service: service.metadata.name, selects: 1 });
      for (const port of service.spec.ports) expect(containerPortFor(appContainerOf(pods[0]), port.targetPort ?? port.port)).toBeDefined();
    }
  });

  describe('secrets', () => {
    /** Settings that carry a password or a key: only ever in the Secret. */
    const SECRET_SETTINGS = ['DATABASE_URL', 'REDIS_URL', 'WEBHOOK_SECRET_KEY', 'BOOTSTRAP_API_KEY', 'AGENT_RUNTIME_SECRET'];

    it('keeps connection URLs and keys out of every ConfigMap', () => {
      for (const configMap of ofKind(objects, 'ConfigMap')) {
        expect({ configMap: configMap.metadata.name, secrets: SECRET_SETTINGS.filter((name) => name in (configMap.data ?? {})) }).toEqual({
          configMap: configMap.metadata.name,
          secrets: [],
        });
      }
    });

    it.each(APPS.filter((a) => a.usesDatastores))('gives $name its REDIS_URL (and DATABASE_URL) from the Secret', (app) => {
      const env: any[] = appContainerOf(deploymentOf(app.name)).env ?? [];
      const fromSecret = (name: string) => env.find((e) => e.name === name)?.valueFrom?.secretKeyRef;
      expect(fromSecret('REDIS_URL')).toEqual({ name: 'aas-secrets', key: 'REDIS_URL' });
      if (app.hasSchema) expect(fromSecret('DATABASE_URL')).toEqual({ name: 'aas-secrets', key: 'DATABASE_URL' });
    });
  });

  describe('network policies', () => {
    it("lets only runs-service reach the agent runtime's dispatch port", () => {
      const runtime = deploymentOf('agent-runtime');
      const port = containerPortFor(appContainerOf(runtime), 'http')!;
      const target = { labels: runtime.spec.template.metadata.labels, ports: appContainerOf(runtime).ports };
      const from = (name: string) => podIn('same', deploymentOf(name).spec.template.metadata.labels);
      expect(admits(objects, target, from('runs-service'), port)).toBe(true);
      for (const other of ['api-gateway', 'agents-service', 'webhook-delivery']) expect({ other, admitted: admits(objects, target, from(other), port) }).toEqual({ other, admitted: false });
      expect(admits(objects, target, podIn('same', { app: 'intruder' }), port)).toBe(false);
    });

    const DATASTORES = ['redis', 'postgresql'];
    const datastore = (component: string): Target => ({
      labels: { 'app.kubernetes.io/part-of': PART_OF, 'app.kubernetes.io/component': component },
    });
    const targetOf = (workload: K8sObject): Target => ({ labels: workload.spec.template.metadata.labels, ports: appContainerOf(workload).ports });
    const workloads = () => [...ofKind(objects, 'Deployment'), ...ofKind(objects, 'Job')];
    const portOf = (workload: K8sObject, name: string) => containerPortFor(appContainerOf(workload), name)!;
    const outside: Source = { kind: 'external' };
    const podIn = (namespace: 'same' | { labels: Labels }, labels: Labels): Source => ({ kind: 'pod', namespace, labels });
    const kedaOperator = podIn({ labels: { 'kubernetes.io/metadata.name': 'keda' } }, { 'app.kubernetes.io/name': 'keda-operator' });

    it('isolates every pod it runs, and the datastores, for ingress', () => {
      for (const target of [...workloads().map(targetOf), ...DATASTORES.map(datastore)]) {
        expect({ pod: target.labels, isolated: ingressPoliciesFor(objects, target.labels).length > 0 }).toEqual({ pod: target.labels, isolated: true });
      }
    });

    it("lets the outside reach the gateway's HTTP port, and nothing else", () => {
      const gateway = deploymentOf('api-gateway');
      expect(admits(objects, targetOf(gateway), outside, portOf(gateway, 'http'))).toBe(true);
      expect(admits(objects, targetOf(gateway), outside, 9999)).toBe(false);
      for (const workload of workloads().filter((w) => w !== gateway)) {
        for (const port of [...(appContainerOf(workload).ports ?? []).map((p: any) => p.containerPort), 9999]) {
          expect({ pod: workload.metadata.name, port, admitted: admits(objects, targetOf(workload), outside, port) }).toEqual({
            pod: workload.metadata.name,
            port,
            admitted: false,
          });
        }
      }
      for (const store of DATASTORES) expect(admits(objects, datastore(store), outside, 6379)).toBe(false);
    });

    it.each(APPS.filter((a) => a.name !== 'api-gateway' && a.name !== 'agent-runtime'))("lets pods of the cluster scrape $name's health port only", (app) => {
      const d = deploymentOf(app.name);
      const prometheus = podIn({ labels: { 'kubernetes.io/metadata.name': 'monitoring' } }, { app: 'prometheus' });
      expect(admits(objects, targetOf(d), prometheus, portOf(d, 'health'))).toBe(true);
      expect(admits(objects, targetOf(d), prometheus, 9999)).toBe(false);
    });

    it('lets only the apps and the migration Job of its namespace reach Redis and PostgreSQL', () => {
      for (const store of DATASTORES) {
        for (const workload of workloads()) {
          const app = podIn('same', workload.spec.template.metadata.labels);
          // The agent runtime uses neither: it is kept out, as it calls the web on a model's behalf.
          const expected = workload.metadata.name !== 'agent-runtime';
          expect({ store, from: workload.metadata.name, admitted: admits(objects, datastore(store), app, 6379) }).toEqual({
            store,
            from: workload.metadata.name,
            admitted: expected,
          });
        }
        const intruders: [string, Source][] = [
          ['a pod of the namespace that is not ours', podIn('same', { app: 'intruder' })],
          ['a pod calling itself part of the install', podIn('same', { 'app.kubernetes.io/part-of': PART_OF, 'app.kubernetes.io/name': 'debug' })],
          ['an app-labelled pod of another namespace', podIn({ labels: { 'kubernetes.io/metadata.name': 'other' } }, deploymentOf('api-gateway').spec.template.metadata.labels)],
        ];
        for (const [who, source] of intruders) {
          expect({ store, who, admitted: admits(objects, datastore(store), source, 6379) }).toEqual({ store, who, admitted: false });
        }
      }
      // KEDA reads the delivery queue's length from Redis, and only where it scales webhook-delivery.
      expect(admits(objects, datastore('redis'), kedaOperator, 6379)).toBe(c.webhookScaler === 'ScaledObject');
      expect(admits(objects, datastore('postgresql'), kedaOperator, 5432)).toBe(false);
    });
  });

  it('has a migration Job that migrates every schema in order, once, and cleans up after itself', () => {
    const jobs = ofKind(objects, 'Job');
    expect(jobs).toHaveLength(1);
    const [job] = jobs;
    const container = appContainerOf(job);
    expect(container.command.slice(0, 2)).toEqual(['sh', '-c']);
    const steps = String(container.command[2]).split('&&').map((s) => s.trim().split(/\s+/));
    expect(steps).toEqual(MIGRATED_APPS.map((a) => [...dockerfileAppCommands().get(a.name)!, 'migrate']));
    expect(job.spec.backoffLimit).toBeGreaterThan(0);
    expect(job.spec.ttlSecondsAfterFinished).toBeGreaterThan(0);
    expect(['Never', 'OnFailure']).toContain(podSpecOf(job).restartPolicy);
    expect(container.resources?.limits).toEqual(expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }));
    expect(hardeningProblems(job)).toEqual([]);
  });
});

/** What is missing from the hardening every pod must have (empty when none). */
function hardeningProblems(workload: K8sObject): string[] {
  const pod = podSpecOf(workload);
  const container = appContainerOf(workload);
  const problems: string[] = [];
  const expectations: [string, unknown, unknown][] = [
    ['pod runAsNonRoot', pod.securityContext?.runAsNonRoot, true],
    ['pod runAsUser', pod.securityContext?.runAsUser, IMAGE_USER],
    ['pod runAsGroup', pod.securityContext?.runAsGroup, IMAGE_USER],
    ['pod seccompProfile', pod.securityContext?.seccompProfile?.type, 'RuntimeDefault'],
    ['container runAsNonRoot', container.securityContext?.runAsNonRoot, true],
    ['container allowPrivilegeEscalation', container.securityContext?.allowPrivilegeEscalation, false],
    ['container readOnlyRootFilesystem', container.securityContext?.readOnlyRootFilesystem, true],
    ['container capabilities.drop', container.securityContext?.capabilities?.drop, ['ALL']],
  ];
  for (const [what, actual, expected] of expectations) {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) problems.push(`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  }
  const tmp = (container.volumeMounts ?? []).find((m: any) => m.mountPath === '/tmp');
  const volume = (pod.volumes ?? []).find((v: any) => v.name === tmp?.name);
  if (!volume?.emptyDir) problems.push('no emptyDir mounted at /tmp');
  return problems;
}

/** The seconds a container's preStop hook sleeps (`sleep N`), 0 without one. */
function preStopSleepSeconds(container: any): number {
  const command: string[] | undefined = container.lifecycle?.preStop?.exec?.command;
  if (!command) return 0;
  if (command[0] !== 'sleep' || command.length !== 2) throw new Error(`unexpected preStop ${JSON.stringify(command)}`);
  return Number(command[1]);
}

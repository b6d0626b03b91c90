import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { K8sObject } from './k8s-objects';

export interface ModelCheck {
  ok: boolean;
  error?: string;
}

const VALIDATOR = join(__dirname, 'validate-k8s-models.mjs');

/**
 * Validates each object against its kubernetes-models (or @kubernetes-models/keda) schema, in a
 * plain Node process (see validate-k8s-models.mjs). An object whose apiVersion and kind have no
 * model is not ok.
 */
export function checkWithK8sModels(objects: readonly unknown[]): ModelCheck[] {
  const result = spawnSync(process.execPath, [VALIDATOR], {
    input: JSON.stringify(objects),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`validate-k8s-models.mjs exited with ${result.status}:\n${result.stderr}`);
  const checks = JSON.parse(result.stdout) as ModelCheck[];
  if (checks.length !== objects.length) throw new Error(`expected ${objects.length} results, got ${checks.length}`);
  return checks;
}

/** `Kind/name: error` for every object that fails its model; empty when all pass. */
export function modelFailures(objects: readonly K8sObject[]): string[] {
  return checkWithK8sModels(objects).flatMap((check, i) =>
    check.ok ? [] : [`${objects[i].kind}/${objects[i].metadata?.name}: ${check.error}`],
  );
}

/* global process */
// Validates Kubernetes objects with kubernetes-models: reads a JSON array of objects on stdin and
// writes one `{ ok, error? }` per object on stdout. kubernetes-models is ESM-only and exports its
// entry points for `import` only, which Jest's CommonJS resolver cannot follow, so the specs run
// this file under plain Node (k8s-models.ts).
import { readFileSync } from 'node:fs';
import * as keda from '@kubernetes-models/keda/keda.sh/v1alpha1';
import * as appsV1 from 'kubernetes-models/apps/v1';
import * as autoscalingV2 from 'kubernetes-models/autoscaling/v2';
import * as batchV1 from 'kubernetes-models/batch/v1';
import * as networkingV1 from 'kubernetes-models/networking.k8s.io/v1';
import * as policyV1 from 'kubernetes-models/policy/v1';
import * as coreV1 from 'kubernetes-models/v1';

// Every top-level kind of these group/versions, by "apiVersion kind". A kind outside them has no
// model here and fails: add its group/version above rather than letting it through unchecked.
const models = new Map();
for (const group of [coreV1, appsV1, batchV1, policyV1, autoscalingV2, networkingV1, keda]) {
  for (const value of Object.values(group)) {
    if (typeof value === 'function' && typeof value.apiVersion === 'string' && typeof value.kind === 'string') {
      models.set(`${value.apiVersion} ${value.kind}`, value);
    }
  }
}

function check(object) {
  const Model = models.get(`${object?.apiVersion} ${object?.kind}`);
  if (!Model) return { ok: false, error: `no kubernetes-models model for apiVersion "${object?.apiVersion}", kind "${object?.kind}"` };
  try {
    new Model(object).validate();
    return { ok: true };
  } catch (error) {
    return { ok: false, error: error.message };
  }
}

const objects = JSON.parse(readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(objects.map(check)));

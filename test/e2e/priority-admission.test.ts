/**
 * Priority admission on update (upstream plugin/pkg/admission/priority): a
 * pod's spec.priority and spec.preemptionPolicy are set at creation, and an
 * update that leaves them out keeps them, so `kubectl replace` of the
 * manifest the pod was created from is not refused as a pod spec change
 * (upstream test/cmd's run_save_config_tests does exactly that).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, Cluster } from './harness.js';
import { apiServerOnly } from './helpers.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); });

const manifest = (label: string) => `apiVersion: v1
kind: Pod
metadata:
  name: replaced
  labels:
    name: ${label}
spec:
  serviceAccountName: default
  automountServiceAccountToken: false
  containers:
  - name: pause
    image: k8ts.local/pause:1
`;

const prioritySpec = async () =>
  (await cluster.kubectl(['get', 'pod', 'replaced', '-o', 'jsonpath={.spec.priority} {.spec.preemptionPolicy} {.metadata.labels.name}'])).stdout;

describe('priority admission on update', () => {
  test('kubectl replace with the creating manifest keeps priority and preemptionPolicy', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: manifest('first') });
    assert.equal(await prioritySpec(), '0 PreemptLowerPriority first');
    const replaced = await cluster.kubectl(['replace', '-f', '-'], { input: manifest('second') });
    assert.equal(replaced.stdout, 'pod/replaced replaced\n');
    assert.equal(await prioritySpec(), '0 PreemptLowerPriority second');
  });

  test('an update that changes preemptionPolicy is still refused', async () => {
    const changed = manifest('third').replace('  containers:', '  preemptionPolicy: Never\n  containers:');
    const res = await cluster.kubectl(['replace', '-f', '-'], { input: changed, allowFail: true });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /Pod "replaced" is invalid: spec: Forbidden: pod updates may not change fields other than/);
  });
});

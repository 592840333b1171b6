/**
 * kubectl's client-side apply against the protobuf /openapi/v2 it reads
 * patch metadata and validation schemas from: a `kind: List` file (what
 * `kubectl get -o yaml` writes) validates and applies, an unchanged file is
 * `unchanged`, and a changed env value is patched into its container while
 * the other container stays (containers merge by name, as upstream's
 * x-kubernetes-patch-merge-key says).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';

let cluster: Cluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster?.cleanup(); });

const deployment = (value: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: clean
  labels: {app: clean}
spec:
  replicas: 2
  selector: {matchLabels: {app: clean}}
  template:
    metadata: {labels: {app: clean}}
    spec:
      containers:
      - name: a
        image: nginx
        env: [{name: X, value: "${value}"}]
      - name: b
        image: busybox
`;

describe('kubectl apply (client-side)', () => {
  test('a kind: List file validates and applies, and again is unchanged', async () => {
    const list = 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: listed}\n  data: {x: "1"}\n';
    assert.match((await cluster.kubectl(['apply', '-f', '-'], { input: list })).stdout, /configmap\/listed created/);
    assert.match((await cluster.kubectl(['apply', '-f', '-'], { input: list })).stdout, /configmap\/listed unchanged/);
    const got = await cluster.kubectl(['get', 'configmaps', '-o', 'yaml']);
    assert.match((await cluster.kubectl(['apply', '-f', '-'], { input: got.stdout })).stdout, /configmap\/listed (unchanged|configured)/);
  });

  test('an unchanged Deployment is unchanged; a changed env value is merged into its container by name', async () => {
    assert.match((await cluster.kubectl(['apply', '-f', '-'], { input: deployment('1') })).stdout, /deployment.apps\/clean created/);
    assert.match((await cluster.kubectl(['apply', '-f', '-'], { input: deployment('1') })).stdout, /deployment.apps\/clean unchanged/);
    assert.match((await cluster.kubectl(['apply', '-f', '-'], { input: deployment('2') })).stdout, /deployment.apps\/clean configured/);
    const r = await cluster.kubectl(['get', 'deploy', 'clean', '-o', 'jsonpath={.spec.template.spec.containers[*].name} {.spec.template.spec.containers[0].env}']);
    assert.equal(r.stdout, 'a b [{"name":"X","value":"2"}]');
  });
});

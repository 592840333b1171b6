/**
 * metadata.generation counts spec changes as upstream's Semantic.DeepEqual
 * sees them: re-applying a manifest whose spec holds an empty list
 * (`namespaces: []`, which the stored object may lack) changes nothing, so the
 * generation and the DaemonSet's template generation stay 1 (upstream
 * test/cmd run_daemonset_tests applies the same manifest twice).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, Cluster } from './harness.js';
import { apiServerOnly } from './helpers.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); });

const daemonSet = (image: string) => `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: bind
spec:
  selector:
    matchLabels: {service: bind}
  template:
    metadata:
      labels: {service: bind}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels: {service: bind}
            topologyKey: kubernetes.io/hostname
            namespaces: []
      containers:
      - name: pause
        image: ${image}
`;

const generations = async () => (await cluster.kubectl(['get', 'daemonset', 'bind', '-o',
  'jsonpath={.metadata.generation} {.metadata.annotations.deprecated\\.daemonset\\.template\\.generation}'])).stdout;

describe('generation on re-apply', () => {
  test('applying the same DaemonSet twice keeps generation 1; a real change bumps it', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: daemonSet('k8ts.local/pause:1') });
    assert.equal(await generations(), '1 1');
    // kubectl still sends a patch (the stored list lacks the empty namespaces), so it says "configured", as with upstream.
    await cluster.kubectl(['apply', '-f', '-'], { input: daemonSet('k8ts.local/pause:1') });
    assert.equal(await generations(), '1 1');
    await cluster.kubectl(['apply', '-f', '-'], { input: daemonSet('k8ts.local/pause:2') });
    assert.equal(await generations(), '2 2');
  });
});

/**
 * The control loops' informers keep untouched pods cold (client/cold-objects.ts, cold-sweep.ts):
 * every member of a pod survives the round trip, the sweep makes only untouched objects cold,
 * and the scheduler cache keeps the members its plugins read without the informer's pod.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ColdObject, isCold } from '../../src/client/cold-objects.js';
import { coldDictionary } from '../../src/util/cold-sweep.js';
import { ColdSweep, coldOptionsFrom, defaultColdOptions } from '../../src/client/cold-sweep.js';
import { stripManagedFields } from '../../src/client/informer.js';
import { cachedPod } from '../../src/scheduler/cached-pod.js';
import { podResources } from '../../src/scheduler/nodeinfo.js';
import { asPod } from '../../src/scheduler/events.js';

/** A pod with every kind of member the API gives one: nested objects, arrays, numbers, booleans, nulls, unicode. */
function fullPod(i: number): Pod {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: `web-${i}`, namespace: 'default', uid: `0000-${i}`, resourceVersion: String(100 + i), generation: 1,
      creationTimestamp: '2026-12-07T00:00:00Z', deletionTimestamp: i % 2 ? '2026-12-07T00:01:00Z' : undefined, deletionGracePeriodSeconds: i % 2 ? 30 : undefined,
      labels: { app: 'web', 'pod-template-hash': 'abc' }, annotations: { note: 'é ü 日本 "quoted" \\ back', empty: '' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'rs-uid', controller: true, blockOwnerDeletion: true }],
      finalizers: ['k8ts.test/keep'],
      managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-12-07T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': {} } }],
    },
    spec: {
      nodeName: `node-${i}`, priority: 1000, schedulerName: 'default-scheduler', restartPolicy: 'Always', terminationGracePeriodSeconds: 30,
      hostNetwork: false, enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority',
      containers: [{
        name: 'c', image: 'nginx:1.27', args: ['-g', 'daemon off;'], ports: [{ containerPort: 80, hostPort: 8080, protocol: 'TCP' }],
        resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } },
        env: [{ name: 'X', value: '1' }, { name: 'Y', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        volumeMounts: [{ name: `kube-api-access-${i}`, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
      }],
      volumes: [{ name: `kube-api-access-${i}`, projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }] } }],
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } }] } },
      securityContext: {},
    },
    status: {
      phase: 'Running', podIP: `10.0.0.${i}`, podIPs: [{ ip: `10.0.0.${i}` }], startTime: '2026-12-07T00:00:05Z', qosClass: 'Burstable',
      conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null as unknown as string, lastTransitionTime: '2026-12-07T00:00:06Z' }],
      containerStatuses: [{ name: 'c', ready: true, restartCount: 0, image: 'nginx:1.27', imageID: 'sha256:1', containerID: `containerd://${i}`, started: true, state: { running: { startedAt: '2026-12-07T00:00:05Z' } } }],
    },
  };
}

/** What JSON keeps of an object: an informer's objects come from JSON, and an undefined member is absent there. */
const asJSON = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('cold informer objects', () => {
  it('every member of a pod survives the round trip; resourceVersion and labels stay readable without a decode', () => {
    const pods = [0, 1, 2].map(fullPod);
    const dict = coldDictionary(pods.slice(0, 2).map((p) => JSON.stringify(p)));
    for (const pod of pods) {
      const text = JSON.stringify(pod);
      const cold = ColdObject.of(pod, text, dict);
      assert.equal(cold.text(), text);
      assert.deepEqual(cold.decode(), asJSON(pod));
      assert.equal(cold.resourceVersion, pod.metadata!.resourceVersion);
      assert.equal(cold.labels, pod.metadata!.labels, 'the labels object itself (shared), not a copy');
      assert.ok(cold.size < text.length / 3, `deflated against the dictionary: ${cold.size} of ${text.length} bytes`);
      assert.notEqual(cold.decode(), cold.decode(), 'each decode is a fresh object');
    }
    // The managedFields transform leaves the member undefined: the round trip leaves it out, as a reader saw it.
    const stripped = stripManagedFields(fullPod(3));
    assert.equal(ColdObject.of(stripped, JSON.stringify(stripped), dict).decode().metadata.managedFields, undefined);
  });

  it('the sweep makes untouched objects cold, leaves touched ones decoded for two generations, and turns them later', () => {
    const map = new Map<string, unknown>([0, 1, 2, 3].map((i) => [`default/web-${i}`, fullPod(i)]));
    const sweep = new ColdSweep(map, { afterMs: 60_000, tickMs: 0, budgetMs: 1000 });
    sweep.touch('default/web-1');
    assert.equal(sweep.sweep(1000), 3);
    assert.deepEqual([...map.values()].map(isCold), [true, false, true, true]);
    assert.equal(sweep.sweep(1000), 0, 'a walked map is not walked again before the generations turn');
    assert.deepEqual((map.get('default/web-0') as ColdObject).decode(), asJSON(fullPod(0)));
    const now = new Map<string, unknown>([['a/b', fullPod(9)]]);
    const immediate = new ColdSweep(now, { afterMs: 0, tickMs: 0, budgetMs: 1000 });
    immediate.touch('a/b');
    // afterMs 0: each sweep turns the generations; the first one finds it in the generation before.
    assert.equal(immediate.sweep(1000), 0, 'touched in the generation before');
    assert.equal(immediate.sweep(1000), 1, 'a turn later it goes cold');
  });

  it('K8TS_INFORMER_COLD_AFTER_MS: a delay, on (the defaults), or off, which unset means', () => {
    assert.deepEqual(coldOptionsFrom('0'), { ...defaultColdOptions, afterMs: 0 });
    assert.equal(coldOptionsFrom('off'), undefined);
    assert.equal(coldOptionsFrom(undefined), undefined);
    assert.equal(coldOptionsFrom(''), undefined);
    assert.deepEqual(coldOptionsFrom('on'), defaultColdOptions);
  });

  it('the scheduler cache\'s form of a pod has every member its plugins read, and what the pod counts', () => {
    const pod = fullPod(1);
    const cached = cachedPod(pod, 'node-9', podResources(pod));
    const m = cached.metadata!;
    assert.deepEqual([m.name, m.namespace, m.uid, m.labels, m.creationTimestamp, m.deletionTimestamp], [
      pod.metadata!.name, 'default', pod.metadata!.uid, pod.metadata!.labels, pod.metadata!.creationTimestamp, pod.metadata!.deletionTimestamp,
    ]);
    assert.deepEqual([m.ownerReferences, m.annotations, cached.spec!.tolerations, cached.status!.phase], [undefined, undefined, undefined, undefined], 'what is not kept reads as absent');
    assert.deepEqual(cached.spec!.containers, [], 'its containers counted in its resources instead');
    assert.equal(cached.metadata!.labels, pod.metadata!.labels, 'shared, not copied');
    assert.deepEqual([cached.spec!.nodeName, cached.spec!.priority, cached.spec!.affinity, cached.status!.startTime], ['node-9', 1000, pod.spec!.affinity, pod.status!.startTime]);
    assert.equal(podResources(cached), podResources(pod), 'counted as the pod, by the same PodResources');
    assert.deepEqual(podResources(cached).hostPorts, [{ hostIP: '', protocol: 'TCP', port: 8080 }]);
  });

  it('a cached pod is one object, and an event about it (a preemption victim) names the pod', () => {
    const pod = fullPod(2);
    const cached = cachedPod(pod, 'node-1', podResources(pod));
    assert.equal(cached.metadata, cached as unknown, 'metadata is the object itself');
    assert.equal(cached.spec, cached as unknown);
    assert.equal(cached.status, cached as unknown);
    const involved = asPod(cached);
    assert.deepEqual([involved.kind, involved.apiVersion, involved.metadata!.name, involved.metadata!.namespace, involved.metadata!.uid],
      ['Pod', 'v1', pod.metadata!.name, 'default', pod.metadata!.uid]);
  });
});

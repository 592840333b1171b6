/** Small kubelet pieces: durations, addresses, images, admission, flags, the Lease shape. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration } from '../../src/kubelet/duration.js';
import { IPPool, podCIDRForIndex, nodeIPForIndex, indexFromName } from '../../src/kubelet/runtime/simulated/ipam.js';
import { normalizeImage, simulatedImageID } from '../../src/kubelet/runtime/simulated/images.js';
import { canAdmitPod, podRequests } from '../../src/kubelet/admission.js';
import { parseLabelsFlag, parseTaintsFlag } from '../../src/kubelet/flags.js';
import { NodeLease, microTime } from '../../src/kubelet/nodelease.js';
import { semanticEqual } from '../../src/kubelet/equal.js';

describe('parseDuration', () => {
  const table: [string, number | undefined][] = [
    ['0', 0], ['0s', 0], ['500ms', 500], ['5s', 5000], ['1.5s', 1500], ['2m30s', 150_000], ['1h', 3_600_000], ['10us', 0.01],
    ['', undefined], ['5', undefined], ['-1s', undefined], ['5x', undefined], ['s', undefined], ['1s2', undefined],
  ];
  for (const [input, want] of table) it(JSON.stringify(input), () => assert.equal(parseDuration(input), want));
});

describe('simulated addresses', () => {
  it('gives node n the pod CIDR 10.244.n.0/24, continuing into the next /16s', () => {
    assert.equal(podCIDRForIndex(0), '10.244.0.0/24');
    assert.equal(podCIDRForIndex(255), '10.244.255.0/24');
    assert.equal(podCIDRForIndex(256), '10.245.0.0/24');
    assert.equal(podCIDRForIndex(4999), '10.7.135.0/24');
    assert.throws(() => podCIDRForIndex(65_536));
  });

  it('numbers node IPs from 172.16.0.10', () => {
    assert.equal(nodeIPForIndex(0), '172.16.0.10');
    assert.equal(nodeIPForIndex(300), '172.16.1.54');
  });

  it('derives a stable index from a name', () => {
    assert.equal(indexFromName('worker1'), indexFromName('worker1'));
    assert.ok(indexFromName('worker1') < 65_536);
  });

  it('allocates .2 to .254 of a /24 and then reports it full', () => {
    const pool = new IPPool('10.244.1.0/24');
    const got = Array.from({ length: 253 }, () => pool.allocate());
    assert.equal(got[0], '10.244.1.2');
    assert.equal(got[252], '10.244.1.254');
    assert.equal(pool.allocate(), undefined);
    pool.release('10.244.1.9');
    assert.equal(pool.allocate(), '10.244.1.9');
    assert.equal(pool.reserve('10.244.2.1'), false);
  });
});

describe('images', () => {
  const table: [string, string][] = [
    ['nginx', 'docker.io/library/nginx:latest'],
    ['nginx:1.27', 'docker.io/library/nginx:1.27'],
    ['bitnami/redis', 'docker.io/bitnami/redis:latest'],
    // The guestbook's leader image: containerd reports docker.io/library/redis:6.0.5.
    ['docker.io/redis:6.0.5', 'docker.io/library/redis:6.0.5'],
    ['docker.io/bitnami/redis', 'docker.io/bitnami/redis:latest'],
    ['index.docker.io/library/nginx:1.27', 'docker.io/library/nginx:1.27'],
    ['quay.io/fluentd_elasticsearch/fluentd:v2.5.2', 'quay.io/fluentd_elasticsearch/fluentd:v2.5.2'],
    ['localhost:5000/app', 'localhost:5000/app:latest'],
    ['registry.k8s.io/pause@sha256:abc', 'registry.k8s.io/pause@sha256:abc'],
  ];
  for (const [input, want] of table) it(input, () => assert.equal(normalizeImage(input), want));
  it('has a stable digest image ID, or keeps the given digest', () => {
    assert.equal(simulatedImageID('nginx'), simulatedImageID('docker.io/library/nginx:latest'));
    assert.equal(simulatedImageID('registry.k8s.io/pause@sha256:abc'), 'registry.k8s.io/pause@sha256:abc');
  });
});

describe('admission', () => {
  const node = (allocatable: any, extra: any = {}) => ({ metadata: { name: 'n', labels: { disk: 'ssd' } }, spec: {}, status: { allocatable }, ...extra });
  const pod = (requests: any = {}, spec: any = {}) => ({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', resources: { requests } }], ...spec } });

  it('sums containers, takes the larger init container, adds sidecars and overhead', () => {
    const r = podRequests({
      containers: [{ name: 'a', resources: { requests: { cpu: '100m', memory: '64Mi' } } }, { name: 'b', resources: { requests: { cpu: '200m' } } }],
      initContainers: [{ name: 'i', resources: { requests: { cpu: '1' } } }, { name: 's', restartPolicy: 'Always', resources: { requests: { cpu: '50m' } } }],
      overhead: { cpu: '10m' },
    });
    assert.equal(r.cpu, 1010n);
    assert.equal(r.memory, 64n * 1024n * 1024n);
  });

  it('rejects a pod over the pods limit with OutOfpods', () => {
    const res = canAdmitPod(node({ pods: '2' }), pod(), [pod(), pod()]);
    assert.deepEqual(res, { admit: false, reason: 'OutOfpods', message: "Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2" });
  });

  it('rejects cpu and memory overcommit with upstream units', () => {
    assert.deepEqual(canAdmitPod(node({ cpu: '4', memory: '1Gi', pods: '110' }), pod({ cpu: '500m' }), [pod({ cpu: '3800m' })]),
      { admit: false, reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu, requested: 500, used: 3800, capacity: 4000" });
    assert.deepEqual(canAdmitPod(node({ cpu: '4', memory: '1Gi', pods: '110' }), pod({ memory: '2Gi' }), []),
      { admit: false, reason: 'OutOfmemory', message: "Node didn't have enough resource: memory, requested: 2147483648, used: 0, capacity: 1073741824" });
    assert.deepEqual(canAdmitPod(node({ cpu: '4', pods: '110' }), pod({ cpu: '4' }), []), { admit: true });
  });

  it('rejects a node selector mismatch and an untolerated NoExecute taint, not NoSchedule', () => {
    assert.equal((canAdmitPod(node({ pods: '110' }), pod({}, { nodeSelector: { disk: 'hdd' } }), []) as any).reason, 'NodeAffinity');
    const tainted = (effect: string) => node({ pods: '110' }, { spec: { taints: [{ key: 'k', effect }] } });
    assert.equal((canAdmitPod(tainted('NoExecute'), pod(), []) as any).reason, 'TaintToleration');
    assert.deepEqual(canAdmitPod(tainted('NoSchedule'), pod(), []), { admit: true });
    assert.deepEqual(canAdmitPod(tainted('NoExecute'), pod({}, { tolerations: [{ operator: 'Exists' }] }), []), { admit: true });
  });
});

describe('flags', () => {
  it('parses labels and taints as the kubelet does', () => {
    assert.deepEqual(parseLabelsFlag('node-labels', 'a=b, example.com/role=,c'), { a: 'b', 'example.com/role': '', c: '' });
    assert.deepEqual(parseTaintsFlag('register-with-taints', 'k=v:NoSchedule,node-role.kubernetes.io/control-plane:NoSchedule'), [
      { key: 'k', value: 'v', effect: 'NoSchedule' }, { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
    ]);
    assert.throws(() => parseTaintsFlag('register-with-taints', 'k=v'), /invalid taint spec/);
    assert.throws(() => parseTaintsFlag('register-with-taints', 'k'), /missing effect/);
    assert.throws(() => parseTaintsFlag('register-with-taints', 'k=v:Sometimes'), /invalid taint effect/);
    assert.throws(() => parseLabelsFlag('node-labels', 'bad key=x'), /invalid label/);
  });
});

describe('node Lease', () => {
  it('is named after the node in kube-node-lease, 40 s, owned by the Node, renewTime in microseconds', () => {
    const lease = new NodeLease({} as any, { nodeName: 'w1', nodeUID: async () => 'uid-1' });
    const l = lease.newLease(undefined, new Date('2025-01-01T00:00:00.123Z'), 'uid-1');
    assert.deepEqual(l, {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
      metadata: { name: 'w1', namespace: 'kube-node-lease', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'w1', uid: 'uid-1' }] },
      spec: { holderIdentity: 'w1', leaseDurationSeconds: 40, renewTime: '2025-01-01T00:00:00.123000Z' },
    });
    const managedFields = [{ manager: 'kubelet', operation: 'Update', apiVersion: 'coordination.k8s.io/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }];
    const cached = { ...l, metadata: { ...l.metadata, resourceVersion: '7', managedFields }, spec: { ...l.spec } };
    const renewed = lease.newLease(cached, new Date('2025-01-01T00:00:10Z'));
    assert.equal(renewed.metadata!.resourceVersion, '7', 'updates from the cached copy');
    assert.equal(renewed.spec!.renewTime, '2025-01-01T00:00:10.000000Z');
    assert.equal(renewed.metadata!.managedFields, undefined, 'an update without managedFields keeps the live ones: not sent');
    assert.deepEqual(renewed.metadata!.ownerReferences, l.metadata!.ownerReferences);
    assert.equal(cached.spec.renewTime, '2025-01-01T00:00:00.123000Z', 'the cached copy is not changed');
    assert.equal(cached.metadata.managedFields, managedFields);
    assert.equal(microTime(new Date('2025-05-05T05:05:05.5Z')), '2025-05-05T05:05:05.500000Z');
  });

  it('updates from the cached Lease without a GET, and does not create one for a missing Node', async () => {
    const calls: string[] = [];
    const { ApiError } = await import('../../src/client/rest.js');
    const nf = new ApiError(404, 'NotFound', 'not found');
    const clients: any = {
      leases: {
        get: async () => { calls.push('get'); throw nf; },
        create: async (_ns: string, l: any) => { calls.push('create'); return { ...l, metadata: { ...l.metadata, resourceVersion: '1' } }; },
        update: async (l: any) => { calls.push('update'); return { ...l, metadata: { ...l.metadata, resourceVersion: String(Number(l.metadata.resourceVersion) + 1) } }; },
      },
    };
    const node: { uid?: string } = {};
    const lease = new NodeLease(clients, { nodeName: 'w1', nodeUID: async () => node.uid });
    assert.equal(await lease.renew(new Date()), 'no-node');
    assert.deepEqual(calls, ['get']);
    node.uid = 'u';
    calls.length = 0;
    assert.equal(await lease.renew(new Date(), { createFirst: true }), 'created');
    assert.equal(await lease.renew(new Date()), 'renewed');
    assert.equal(await lease.renew(new Date()), 'renewed');
    assert.deepEqual(calls, ['create', 'update', 'update']);
    assert.equal(lease.latest!.metadata!.resourceVersion, '3');
  });

  it('sends renewals through the light (undici) path only when asked', async () => {
    const seen: (boolean | undefined)[] = [];
    const clients: any = {
      leases: { update: async (l: any, _sub: unknown, o: { light?: boolean } = {}) => { seen.push(o.light); return l; } },
    };
    for (const light of [undefined, true]) {
      const lease = new NodeLease(clients, { nodeName: 'w1', nodeUID: async () => 'u', light });
      lease.latest = lease.newLease(undefined, new Date(), 'u');
      assert.equal(await lease.renew(new Date()), 'renewed');
    }
    assert.deepEqual(seen, [undefined, true]);
  });
});

describe('semanticEqual', () => {
  it('treats null and missing keys alike', () => {
    assert.ok(semanticEqual({ a: 1, b: null, c: [{ x: undefined }] }, { a: 1, c: [{}] }));
    assert.ok(!semanticEqual({ a: [1, 2] }, { a: [2, 1] }));
    assert.ok(!semanticEqual({ a: {} }, { a: [] }));
  });
  it('compares the keys of either side, whichever has more', () => {
    assert.ok(semanticEqual({ a: 1 }, { a: 1, b: undefined, c: null }));
    assert.ok(semanticEqual({ a: 1, b: undefined, c: null }, { a: 1 }));
    assert.ok(!semanticEqual({ a: 1 }, { a: 1, b: 0 }));
    assert.ok(!semanticEqual({ a: 1, b: '' }, { a: 1 }));
    assert.ok(!semanticEqual({ a: { x: 1 } }, { a: { x: 1, y: { z: 2 } } }));
    assert.ok(semanticEqual({ s: { conditions: [{ type: 'Ready', status: 'True' }] } }, { s: { conditions: [{ status: 'True', type: 'Ready', reason: null }] } }));
  });
});

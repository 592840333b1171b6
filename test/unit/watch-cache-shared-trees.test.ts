/**
 * The watch cache shares pods' repeated spec and status subtrees among the cached pods
 * (registry/watch-cache/compact.ts): equal subtrees are one frozen copy, a write to one pod
 * (through the store, as every writer does: a private copy) changes that pod only, and the
 * shared copies stay as they were.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import { Registry } from '../../src/registry/registry.js';
import type { Store } from '../../src/registry/store.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { realClock } from '../../src/util/clock.js';
import { silentLogger as quiet } from '../../src/util/log.js';
import { compact, compactionFor } from '../../src/registry/watch-cache/compact.js';
import { FieldSet } from '../../src/api/managedfields/set.js';

const tolerations = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
];

/** A DaemonSet's pod: the same template on every node but for the node's name. */
function daemonPod(name: string, node: string): Pod {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: 'ns1', labels: { app: 'exporter' } },
    spec: {
      nodeName: node,
      containers: [{
        name: 'exporter', image: 'quay.io/prometheus/node-exporter:v1.8.2', args: ['--path.rootfs=/host'],
        resources: { requests: { cpu: '100m', memory: '64Mi' } }, volumeMounts: [{ name: 'root', mountPath: '/host', readOnly: true }],
      }],
      volumes: [{ name: 'root', hostPath: { path: '/' } }],
      tolerations,
    },
  };
}

const running = (ip: string): PodStatus => ({
  phase: 'Running', podIP: ip,
  conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-12-04T03:00:00Z' }],
});

async function cluster(t: { after(fn: () => Promise<void>): void }): Promise<{ pods: Store; cached(name: string): Pod; storedText(name: string): Promise<string> }> {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  const registry = new Registry(backend, realClock);
  t.after(async () => { registry.closeWatchCache(); await backend.close(); });
  await registry.startWatchCache({ capacity: 100, logger: quiet });
  await registry.namespaces.create(undefined, { metadata: { name: 'ns1' } });
  const pods = registry.store('', 'v1', 'pods')!;
  const cached = (name: string) => {
    const pod = pods.watchCache!.current(`${pods.resourcePrefix}ns1/${name}`) as Pod | undefined;
    assert.ok(pod, `pod ${name} is in the watch cache`);
    return pod;
  };
  // The object as storage holds it, with its resourceVersion (what a read from storage serves).
  const storedText = async (name: string) => {
    const { kv } = await backend.get(`${pods.resourcePrefix}ns1/${name}`);
    const obj = JSON.parse(kv!.value) as { metadata: Record<string, unknown> };
    obj.metadata.resourceVersion = String(kv!.modRevision);
    return JSON.stringify(obj);
  };
  return { pods, cached, storedText };
}

/** Resolves once the watch cache holds `name` at or after `rv` (the feed applies writes after they return). */
async function cachedAt(c: { cached(name: string): Pod }, pods: Store, name: string, rv: string): Promise<Pod> {
  await pods.watchCache!.waitFor(Number(rv), 5_000);
  return c.cached(name);
}

test('pods from one template share their spec subtrees and status conditions in the watch cache, frozen', async (t) => {
  const c = await cluster(t);
  const a = await c.pods.create('ns1', daemonPod('a', 'node-1')) as Pod;
  const b = await c.pods.create('ns1', daemonPod('b', 'node-2')) as Pod;
  const pa = await cachedAt(c, c.pods, 'a', a.metadata!.resourceVersion!);
  const pb = await cachedAt(c, c.pods, 'b', b.metadata!.resourceVersion!);
  assert.notEqual(pa.spec, pb.spec, 'the specs differ (nodeName): each pod has its own');
  assert.equal(pa.spec!.containers, pb.spec!.containers, 'one copy of the containers');
  assert.equal(pa.spec!.volumes, pb.spec!.volumes, 'one copy of the volumes');
  assert.equal(pa.spec!.tolerations, pb.spec!.tolerations, 'one copy of the tolerations');
  assert.ok(Object.isFrozen(pa.spec!.containers) && Object.isFrozen(pa.spec!.containers[0]!.resources), 'shared copies are read-only');
  assert.throws(() => { (pa.spec!.containers[0] as { image: string }).image = 'changed'; }, TypeError);
  assert.equal(pb.spec!.containers[0]!.image, 'quay.io/prometheus/node-exporter:v1.8.2');

  // Their kubelets report them Running in the same second: the conditions are shared too, the IPs are not.
  for (const [name, ip] of [['a', '10.0.1.5'], ['b', '10.0.2.5']] as const) {
    await c.pods.guaranteedUpdate('ns1', name, (p: Pod) => ({ ...p, status: running(ip) }), { subresource: 'status' });
  }
  const rv = (await c.pods.get('ns1', 'b') as Pod).metadata!.resourceVersion!;
  const sa = await cachedAt(c, c.pods, 'a', rv);
  const sb = c.cached('b');
  assert.equal(sa.status!.conditions, sb.status!.conditions, 'one copy of equal conditions');
  assert.equal(sa.status!.podIP, '10.0.1.5');
  assert.equal(sb.status!.podIP, '10.0.2.5');
  assert.equal(sa.spec, pa.spec, 'a status write keeps the cached spec it did not change (compared, not hashed again)');
  // The cached copies (fresh objects, util/fresh-object.ts) serve the stored text byte for byte, key order included.
  assert.equal(JSON.stringify(sa), await c.storedText('a'));
  assert.equal(JSON.stringify(sb), await c.storedText('b'));
  assert.equal(sa.metadata!.labels, sb.metadata!.labels, 'one copy of equal labels');
  assert.ok(Object.isFrozen(sa.status!.conditions![0]));
});

test('an update of one pod that shares subtrees with another changes that pod only', async (t) => {
  const c = await cluster(t);
  await c.pods.create('ns1', daemonPod('a', 'node-1'));
  const b = await c.pods.create('ns1', daemonPod('b', 'node-2')) as Pod;
  const before = JSON.stringify(await cachedAt(c, c.pods, 'b', b.metadata!.resourceVersion!));
  const sharedContainers = c.cached('b').spec!.containers;
  assert.equal(c.cached('a').spec!.containers, sharedContainers);

  // A writer changes what pod a shares with b: the image (allowed on update), a toleration added, the labels.
  const updated = await c.pods.guaranteedUpdate('ns1', 'a', (p: Pod) => {
    p.spec!.containers[0]!.image = 'quay.io/prometheus/node-exporter:v1.9.0';
    p.spec!.tolerations = [...p.spec!.tolerations!, { key: 'extra', operator: 'Exists' }];
    p.metadata!.labels = { ...p.metadata!.labels, changed: 'yes' };
    return p;
  }) as Pod;
  const pa = await cachedAt(c, c.pods, 'a', updated.metadata!.resourceVersion!);
  assert.equal(pa.spec!.containers[0]!.image, 'quay.io/prometheus/node-exporter:v1.9.0');
  assert.equal(pa.spec!.tolerations!.length, 3);
  assert.notEqual(pa.spec!.containers, sharedContainers, 'a has its own containers now');
  const pb = c.cached('b');
  assert.equal(JSON.stringify(pb), before, 'pod b is exactly as it was');
  assert.equal(pb.spec!.containers, sharedContainers, 'and still holds the shared copy');
  assert.equal(sharedContainers[0]!.image, 'quay.io/prometheus/node-exporter:v1.8.2', 'the shared copy did not change');
  // Served objects are the same JSON as without sharing.
  assert.deepEqual(await c.pods.get('ns1', 'b'), JSON.parse(before));
});

test('only the kinds listed share their spec and status: a ConfigMap keeps its own data', () => {
  const one: ConfigMap = { metadata: { name: 'x' }, data: { k: 'v' } };
  const two: ConfigMap = { metadata: { name: 'y' }, data: { k: 'v' } };
  compact(one, undefined, { members: [], poolStrings: true });
  compact(two, undefined, { members: [], poolStrings: true });
  assert.notEqual(one.data, two.data);
  assert.ok(!Object.isFrozen(one.data));
});

test('compact: equal subtrees of the listed members become one frozen copy; the JSON is unchanged', () => {
  const make = (ip: string) => ({ metadata: { name: ip }, spec: { a: { b: [1, 2, { c: 'd' }] }, e: null }, status: { podIP: ip, phase: 'Running' } });
  const x = make('1');
  const y = make('2');
  const texts = [JSON.stringify(x), JSON.stringify(y)];
  compact(x, undefined, { members: ['spec', 'status'], poolStrings: true });
  compact(y, undefined, { members: ['spec', 'status'], poolStrings: true });
  assert.deepEqual([JSON.stringify(x), JSON.stringify(y)], texts);
  assert.equal(x.spec.a, y.spec.a, 'equal subtrees: one copy');
  assert.notEqual(x.status, y.status);
  assert.ok(Object.isFrozen(x.spec.a.b[2]), 'shared copies are frozen');
  assert.ok(!Object.isFrozen(x) && !Object.isFrozen(x.metadata) && !Object.isFrozen(x.spec), 'the object, its metadata and the members themselves stay its own');
});

test('a new pod is compared with the last one created first, and still shares with its template when that one differs', async (t) => {
  const c = await cluster(t);
  const other = (name: string, node: string): Pod => {
    const p = daemonPod(name, node);
    p.spec!.containers[0]!.image = 'registry.k8s.io/pause:3.10';
    return p;
  };
  await c.pods.create('ns1', daemonPod('a', 'node-1'));
  await c.pods.create('ns1', other('b', 'node-1'));
  const d = await c.pods.create('ns1', daemonPod('d', 'node-2')) as Pod;
  const pd = await cachedAt(c, c.pods, 'd', d.metadata!.resourceVersion!);
  const [pa, pb] = [c.cached('a'), c.cached('b')];
  assert.notEqual(pb.spec!.containers, pa.spec!.containers, 'b (created between them) has other containers');
  assert.equal(pd.spec!.containers, pa.spec!.containers, 'd shares a\'s containers, found in the pool after b\'s differed');
  assert.equal(pd.spec!.volumes, pb.spec!.volumes, 'and the volumes all three have alike');
  assert.equal(pd.spec!.containers[0]!.image, 'quay.io/prometheus/node-exporter:v1.8.2');
  assert.equal(pb.spec!.containers[0]!.image, 'registry.k8s.io/pause:3.10');
  assert.notEqual(pd.spec, pa.spec, 'each pod keeps its own spec (its node differs)');
});

test('pods listed into a new cache share their subtrees with their neighbours', async (t) => {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  const registry = new Registry(backend, realClock);
  t.after(async () => { registry.closeWatchCache(); await backend.close(); });
  await registry.namespaces.create(undefined, { metadata: { name: 'ns1' } });
  const pods = registry.store('', 'v1', 'pods')!;
  for (const [name, node] of [['a', 'node-1'], ['b', 'node-2'], ['c', 'node-3']]) await pods.create('ns1', daemonPod(name, node));
  await registry.startWatchCache({ capacity: 100, logger: quiet });
  await pods.watchCache!.whenReady();
  const cached = (name: string) => pods.watchCache!.current(`${pods.resourcePrefix}ns1/${name}`) as Pod;
  const [pa, pb, pc] = [cached('a'), cached('b'), cached('c')];
  assert.equal(pb.spec!.containers, pa.spec!.containers);
  assert.equal(pc.spec!.tolerations, pa.spec!.tolerations);
  assert.ok(Object.isFrozen(pc.spec!.containers));
  assert.deepEqual(pc, await pods.get('ns1', 'c'), 'the cached pod is what storage holds');
  assert.equal(pc.spec!.nodeName, 'node-3');
});

test('node Leases keep their own strings but share their field sets; pods share members, every other kind pools strings', () => {
  const leases = compactionFor('/registry/coordination.k8s.io/leases/');
  assert.deepEqual(leases, { members: [], poolStrings: false });
  assert.deepEqual(compactionFor('/registry/core/configmaps/'), { members: [], poolStrings: true });
  assert.deepEqual(compactionFor('/registry/core/pods/'), { members: ['spec', 'status', 'metadata'], poolStrings: true });
  const lease = (name: string) => ({
    metadata: {
      name, namespace: 'kube-node-lease',
      managedFields: [{ manager: 'kubelet', operation: 'Update', apiVersion: 'coordination.k8s.io/v1', time: '2026-12-06T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:holderIdentity': {}, 'f:renewTime': {} } } }],
    },
    spec: { holderIdentity: name, renewTime: '2026-12-06T10:00:00.000000Z' },
  });
  const a = lease('node-1');
  const b = lease('node-2');
  const texts = [JSON.stringify(a), JSON.stringify(b)];
  compact(a, undefined, leases);
  compact(b, undefined, leases);
  assert.deepEqual([JSON.stringify(a), JSON.stringify(b)], texts);
  assert.equal(a.metadata.managedFields[0]!.fieldsV1, b.metadata.managedFields[0]!.fieldsV1, 'the kubelets\' field sets: one frozen copy');
  assert.ok(Object.isFrozen(a.metadata.managedFields[0]!.fieldsV1));
});

test('a frozen FieldsV1 (the cache\'s shared field sets) is parsed once; any other each time', () => {
  const json = { 'f:spec': { 'f:renewTime': {}, 'f:holderIdentity': {} } };
  const thawed = [FieldSet.fromFieldsV1(json), FieldSet.fromFieldsV1(json)];
  assert.notEqual(thawed[0], thawed[1]);
  const frozen = Object.freeze({ 'f:spec': Object.freeze({ 'f:renewTime': Object.freeze({}), 'f:holderIdentity': Object.freeze({}) }) });
  const once = FieldSet.fromFieldsV1(frozen);
  assert.equal(FieldSet.fromFieldsV1(frozen), once);
  assert.ok(once.equals(thawed[0]!));
  assert.deepEqual(once.toFieldsV1(), thawed[0]!.toFieldsV1());
});

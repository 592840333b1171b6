/**
 * What a pod status write (PUT pods/x/status, once per pod a kubelet starts: issue #20's DaemonSet
 * rollout makes 5,000) costs the store, counted: storage reads, whole-pod parses and whole-pod
 * encodes, with the watch cache's apply of the write's event included. The write starts from the
 * watch cache's copy of the pod (no storage read) and, when its caller only reads the result
 * (resultShared, as the API server's handler), takes that copy's spec by reference instead of a
 * private parse of the whole pod: one encode (the stored value) and no parse. The cached old
 * version is left exactly as it was, and what is stored, answered and cached is what upstream's
 * status strategy gives: the stored spec, the body's status with omitempty zeros dropped.
 * A create is counted too: one encode of the pod (the stored value), no parse, and its answer's
 * text and its watch event's are that value with the resourceVersion spliced in, one string.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import { Registry } from '../../src/registry/registry.js';
import type { Backend } from '../../src/storage/backend.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { realClock } from '../../src/util/clock.js';
import { silentLogger as quiet } from '../../src/util/log.js';
import type { Store } from '../../src/registry/store.js';
import type { WatchEventOut } from '../../src/registry/types.js';
import { objectJSON, renderedJSON } from '../../src/registry/watch-cache/rendered-json.js';

const readOps = new Set(['get', 'list', 'count']);
const writeOps = new Set(['create', 'update', 'delete']);

/** A real SQLite backend whose reads and writes are counted on their way in. */
function countedBackend(backend: Backend): { backend: Backend; counts: { reads: number; writes: number } } {
  const counts = { reads: 0, writes: 0 };
  const counted = new Proxy(backend, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (readOps.has(String(prop))) counts.reads++;
        if (writeOps.has(String(prop))) counts.writes++;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { backend: counted, counts };
}

async function setup(t: { after(fn: () => Promise<void>): void }) {
  const sqlite = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  const { backend, counts } = countedBackend(sqlite);
  const registry = new Registry(backend, realClock);
  t.after(async () => { registry.closeWatchCache(); await sqlite.close(); });
  await registry.startWatchCache({ capacity: 1024, logger: quiet });
  await registry.namespaces.create(undefined, { metadata: { name: 'default' } });
  return { registry, counts, pods: registry.store('', 'v1', 'pods')! };
}

/** A bound pod as a DaemonSet controller creates it, in the watch cache. */
async function boundPod(pods: Store, name: string): Promise<Pod> {
  const created: Pod = await pods.create('default', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'ds' } },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'gasbugs/http-go', ports: [{ containerPort: 8080 }] }], tolerations: [{ key: 'k', operator: 'Exists' }] },
  } satisfies Pod, { fieldManager: { manager: 'kube-controller-manager' }, resultShared: true });
  await pods.watchCache!.waitFor(Number(created.metadata!.resourceVersion), 5_000);
  return created;
}

/** The kubelet's body (kubelet/status/manager.ts statusUpdate): metadata without managedFields, and the status. */
function kubeletBody(pod: Pod, status: PodStatus): Pod {
  const { managedFields: _m, ...metadata } = pod.metadata!;
  return { apiVersion: 'v1', kind: 'Pod', metadata, status };
}

const running: PodStatus = {
  phase: 'Running', podIP: '10.244.0.5', podIPs: [{ ip: '10.244.0.5' }], hostIP: '192.168.0.1', startTime: '2026-12-07T03:00:00Z',
  conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-12-07T03:00:01Z' }],
  containerStatuses: [{ name: 'c', image: 'gasbugs/http-go', imageID: '', ready: true, restartCount: 0, started: true, state: { running: { startedAt: '2026-12-07T03:00:01Z' } } }],
};

/**
 * Counts, while `run` runs, JSON.parse calls of a text holding `uid` and JSON.stringify calls of
 * an object whose metadata.uid is `uid`: the whole pod's parses and encodes. `{ name }`: of a text
 * holding its "name" member and of an object of that metadata.name instead (a create: no uid yet).
 */
async function wholeObjectCodecs<T>(uid: string | { name: string }, run: () => Promise<T>): Promise<{ result: T; parses: number; encodes: number }> {
  const { parse, stringify } = JSON;
  const inText = typeof uid === 'string' ? uid : `"name":${stringify(uid.name)}`;
  const isPod = typeof uid === 'string' ? (m: Pod['metadata']) => m?.uid === uid : (m: Pod['metadata']) => m?.name === uid.name;
  let parses = 0;
  let encodes = 0;
  JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
    if (typeof text === 'string' && text.includes(inText)) parses++;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  JSON.stringify = ((value: unknown, ...rest: unknown[]) => {
    if (isPod((value as Pod | null)?.metadata)) encodes++;
    return (stringify as (...a: unknown[]) => string)(value, ...rest);
  }) as typeof JSON.stringify;
  try {
    return { result: await run(), parses, encodes };
  } finally {
    JSON.parse = parse;
    JSON.stringify = stringify;
  }
}

test('storage reads per status update: a kubelet\'s PUT pods/status costs no storage read, one write, one encode and no parse of the pod', async (t) => {
  const { pods, counts } = await setup(t);
  const created = await boundPod(pods, 'p1');
  const key = pods.key('default', 'p1');
  const cachedOld = pods.watchCache!.current(key) as Pod;
  const oldText = JSON.stringify(cachedOld);
  const reads0 = counts.reads;
  const writes0 = counts.writes;
  const { result: updated, parses, encodes } = await wholeObjectCodecs(created.metadata!.uid!, async () => {
    // As the API server's handler: the decoded body is the write's own, decoded again only for a retry.
    const res: Pod = await pods.update('default', 'p1', kubeletBody(cachedOld, running), {
      subresource: 'status', fieldManager: { manager: 'kubelet', subresource: 'status' }, resultShared: true, inputAgain: () => kubeletBody(cachedOld, running),
    });
    await pods.watchCache!.waitFor(Number(res.metadata!.resourceVersion), 5_000);
    return res;
  });
  assert.deepEqual({ reads: counts.reads - reads0, writes: counts.writes - writes0, parses, encodes }, { reads: 0, writes: 1, parses: 0, encodes: 1 });
  assert.equal(updated.status!.phase, 'Running');
  assert.equal(pods.watchCache!.current(key), updated, 'the written object is the cache\'s copy');
  assert.equal(updated.spec, cachedOld.spec, 'the new version holds the stored spec itself');
  assert.equal(JSON.stringify(cachedOld), oldText, 'the cached old version is unchanged');
  assert.deepEqual(updated.metadata!.managedFields!.map((e) => [e.manager, e.subresource]), [['kube-controller-manager', undefined], ['kubelet', 'status']]);
  assert.equal(updated.metadata!.managedFields![0], cachedOld.metadata!.managedFields![0], 'the creator\'s entry is the stored one');
  assert.equal(JSON.stringify(await pods.get('default', 'p1')), JSON.stringify(updated), 'answered as stored');
});

test('a status write normalizes what it was sent and ignores a sent spec; the stored spec is kept, in upstream\'s order', async (t) => {
  const { pods } = await setup(t);
  await boundPod(pods, 'p2');
  const key = pods.key('default', 'p2');
  const cachedOld = pods.watchCache!.current(key) as Pod;
  const oldText = JSON.stringify(cachedOld);
  const body = { ...kubeletBody(cachedOld, { ...running, message: '', reason: '', nominatedNodeName: '' }), spec: { ...cachedOld.spec!, nodeName: 'elsewhere' } };
  const updated: Pod = await pods.update('default', 'p2', body, {
    subresource: 'status', fieldManager: { manager: 'kubelet', subresource: 'status' }, resultShared: true,
  });
  assert.deepEqual(Object.keys(updated), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  assert.equal(updated.spec!.nodeName, 'node-1');
  assert.equal(updated.spec, cachedOld.spec);
  assert.equal('message' in updated.status!, false, 'omitempty zeros of the body dropped');
  assert.equal('reason' in updated.status!, false);
  assert.equal(updated.status!.containerStatuses![0]!.restartCount, 0, 'a zero Go always writes is kept');
  assert.equal(JSON.stringify(cachedOld), oldText);
  const stored = await pods.get('default', 'p2') as Pod;
  assert.deepEqual(stored.spec, JSON.parse(JSON.stringify(cachedOld.spec)));
});

test('a status write whose result the caller may change (no resultShared) gets a private spec; the cached one is unchanged', async (t) => {
  const { pods } = await setup(t);
  await boundPod(pods, 'p3');
  const key = pods.key('default', 'p3');
  const cachedOld = pods.watchCache!.current(key) as Pod;
  const oldText = JSON.stringify(cachedOld);
  const updated: Pod = await pods.update('default', 'p3', kubeletBody(cachedOld, running), { subresource: 'status', fieldManager: { manager: 'kubelet', subresource: 'status' } });
  assert.notEqual(updated.spec, cachedOld.spec);
  updated.spec!.containers[0]!.image = 'changed-by-the-caller';
  assert.equal(JSON.stringify(cachedOld), oldText);
  assert.equal(((await pods.get('default', 'p3')) as Pod).spec!.containers[0]!.image, 'gasbugs/http-go');
});

test('a status patch of a cached pod: no storage read, the stored spec kept, the cached old version unchanged', async (t) => {
  const { pods, counts } = await setup(t);
  await boundPod(pods, 'p4');
  const key = pods.key('default', 'p4');
  const cachedOld = pods.watchCache!.current(key) as Pod;
  const oldText = JSON.stringify(cachedOld);
  const reads0 = counts.reads;
  const updated: Pod = await pods.guaranteedUpdate('default', 'p4', (cur: Pod) => ({ ...cur, status: { ...cur.status, phase: 'Running' }, spec: { ...cur.spec!, nodeName: 'elsewhere' } }), {
    subresource: 'status', fieldManager: { manager: 'kubelet', subresource: 'status' }, resultShared: true,
  });
  assert.equal(counts.reads - reads0, 0);
  assert.equal(updated.status!.phase, 'Running');
  assert.equal(updated.spec!.nodeName, 'node-1');
  assert.equal(JSON.stringify(cachedOld), oldText);
});

test('a pod create encodes the pod once: the stored value, which its answer and its watch event are (spliced), parsed never', async (t) => {
  const { pods } = await setup(t);
  const events: WatchEventOut[] = [];
  const w = await pods.watch('default', { resourceVersion: String(pods.watchCache!.revision) }, (e) => events.push(e), () => {});
  t.after(() => w.close());
  const body: Pod = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'c1', labels: { app: 'ds' } },
    spec: { containers: [{ name: 'c', image: 'gasbugs/http-go', ports: [{ containerPort: 8080 }] }] },
  };
  const { result: created, parses, encodes } = await wholeObjectCodecs({ name: 'c1' }, async () => {
    // As the API server's handler: the created object answered as its text (crud.ts), the event as its watchers write it (watch.ts).
    const res: Pod = await pods.create('default', body, { fieldManager: { manager: 'kubectl-create' }, resultShared: true, inputOwned: true });
    const answer = renderedJSON(res);
    await pods.watchCache!.waitFor(Number(res.metadata!.resourceVersion), 5_000);
    const event = events.map((e) => objectJSON(e.object));
    return { res, answer, event };
  });
  assert.deepEqual({ parses, encodes }, { parses: 0, encodes: 1 });
  assert.equal(events.length, 1);
  assert.equal(events[0]!.type, 'ADDED');
  assert.equal(events[0]!.object, created.res, 'the event\'s object is the answer\'s (the cache keeps the written object)');
  assert.equal(created.event[0], created.answer, 'one text for the answer and the event');
  assert.equal(created.answer, JSON.stringify(await pods.get('default', 'c1')), 'answered as stored, resourceVersion and managedFields included');
  assert.deepEqual(created.res.metadata!.managedFields!.map((e) => [e.manager, e.operation]), [['kubectl-create', 'Update']]);
});

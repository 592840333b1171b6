/**
 * A binding's stored text is spliced from the pod's (registry/pod-binding-text.ts) instead of a
 * JSON.stringify of the bound pod: it must be exactly the text the store's encode gives (the bound
 * pod's JSON without metadata.resourceVersion), for every shape it accepts, and undefined for the
 * shapes it does not (the store encodes those as before). Through a real Registry with its watch
 * cache: the stored value of a bind is that text, and what a GET and a watcher see is the bound pod.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Binding, Pod } from 'kubernetes-types/core/v1.js';
import { boundPodStoredText } from '../../src/registry/pod-binding-text.js';
import { assignPod, setPodNodeNameAndMetadata } from '../../src/registry/pod-binding.js';
import { objectMembers, withoutResourceVersion } from '../../src/registry/stored-json.js';
import { Registry } from '../../src/registry/registry.js';
import { renderedJSON } from '../../src/registry/watch-cache/rendered-json.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { realClock } from '../../src/util/clock.js';
import { silentLogger as quiet } from '../../src/util/log.js';
import type { WatchEventOut } from '../../src/registry/types.js';

const now = '2026-12-07T03:00:00Z';

/** The store's encode of a pod: its JSON without metadata.resourceVersion. */
function encoded(pod: Pod): string {
  const { resourceVersion: _rv, ...metadata } = pod.metadata!;
  return JSON.stringify({ ...pod, metadata });
}

const base = (): Pod => ({
  kind: 'Pod', apiVersion: 'v1',
  metadata: { name: 'p', namespace: 'default', uid: 'u-1', labels: { app: 'a"}{,' }, resourceVersion: '12' },
  spec: { containers: [{ name: 'c', image: 'pause', env: [{ name: 'X', value: 'say "nodeName":{}, [ok]\\' }] }], schedulerName: 'default-scheduler' },
  status: { phase: 'Pending', qosClass: 'Burstable' },
});

const shapes: Array<{ name: string; pod: () => Pod }> = [
  { name: 'no conditions yet (status members before)', pod: base },
  { name: 'a PodScheduled=False condition to replace', pod: () => ({ ...base(), status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastProbeTime: null as unknown as string, lastTransitionTime: '2026-12-07T02:00:00Z' }], qosClass: 'Burstable' } }) },
  { name: 'other conditions kept', pod: () => ({ ...base(), status: { conditions: [{ type: 'Custom', status: 'True' }] } }) },
  { name: 'an empty status and an empty spec', pod: () => ({ ...base(), spec: {} as Pod['spec'], status: {} }) },
  { name: 'a nested nodeName (affinity) and unicode', pod: () => ({ ...base(), metadata: { ...base().metadata, annotations: { note: 'été ✓' } }, spec: { ...base().spec!, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n'] }] }] } } }, overhead: { cpu: '1' } } }) },
];

for (const s of shapes) {
  test(`the spliced text is the store's encode of the bound pod: ${s.name}`, () => {
    const pod = s.pod();
    const bound = setPodNodeNameAndMetadata(pod, 'node-7', undefined, now);
    assert.equal(boundPodStoredText(encoded(pod), 'node-7', bound.status!.conditions!), encoded(bound));
  });
}

test('shapes the splice leaves to the encode: a nodeName member, no status, unreadable text', () => {
  const conditions = [{ type: 'PodScheduled', status: 'True' }];
  assert.equal(boundPodStoredText(encoded({ ...base(), spec: { ...base().spec!, nodeName: '' } }), 'n', conditions), undefined);
  const { status: _s, ...noStatus } = base();
  assert.equal(boundPodStoredText(encoded(noStatus), 'n', conditions), undefined);
  assert.equal(boundPodStoredText('{"spec":{"containers":[]},"status":{', 'n', conditions), undefined);
  assert.equal(boundPodStoredText('not json', 'n', conditions), undefined);
});

test('withoutResourceVersion cuts metadata\'s last member when it is resourceVersion, and only then', () => {
  const pod = base();
  assert.equal(withoutResourceVersion(JSON.stringify(pod)), encoded(pod));
  assert.equal(withoutResourceVersion('{"metadata":{"resourceVersion":"3"},"spec":{}}'), '{"metadata":{},"spec":{}}');
  assert.equal(withoutResourceVersion('{"metadata":{"resourceVersion":"3","name":"a"}}'), undefined);
  assert.equal(withoutResourceVersion('{"metadata":{"name":"a"}}'), undefined);
  assert.deepEqual(objectMembers('{"a":1,"b":{"a":2},"c":"}"}', 0, ['"a"', '"c"', '"z"'])?.values, [{ start: 5, end: 6 }, { start: 23, end: 26 }, undefined]);
});

async function setup(t: { after(fn: () => Promise<void>): void }) {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  const registry = new Registry(backend, realClock);
  t.after(async () => { registry.closeWatchCache(); await backend.close(); });
  await registry.startWatchCache({ capacity: 1024, logger: quiet });
  await registry.namespaces.create(undefined, { metadata: { name: 'default' } });
  return { registry, backend, pods: registry.store('', 'v1', 'pods')! };
}

const binding = (name: string, node: string, annotations?: Record<string, string>): Binding =>
  ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, annotations }, target: { apiVersion: 'v1', kind: 'Node', name: node } });

for (const annotations of [undefined, { 'example.com/bound-by': 'test' }]) {
  test(`a bind through the store stores the encode of the bound pod and serves it (${annotations ? 'annotations: encoded' : 'spliced'})`, async (t) => {
    const { backend, pods } = await setup(t);
    const created: Pod = await pods.create('default', {
      metadata: { name: 'p', labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'pause' }] },
    } satisfies Pod, { fieldManager: { manager: 'kubectl' }, resultShared: true });
    const key = pods.key('default', 'p');
    const cachedBefore = pods.watchCache!.current(key);
    const textBefore = JSON.stringify(cachedBefore);
    const sent: string[] = [];
    const w = await pods.watch('default', { resourceVersion: created.metadata!.resourceVersion }, (e: WatchEventOut) => { sent.push(JSON.stringify(e.object)); }, () => {});
    t.after(() => w.close());

    await assignPod(pods, 'default', 'p', binding('p', 'node-3', annotations), { dryRun: false, now: new Date(now) });
    const bound: Pod = await pods.get('default', 'p');
    assert.equal(bound.spec!.nodeName, 'node-3');
    assert.deepEqual(bound.status!.conditions!.map((c) => [c.type, c.status, c.lastTransitionTime]), [['PodScheduled', 'True', now]]);
    assert.equal(bound.metadata!.annotations?.['example.com/bound-by'], annotations?.['example.com/bound-by']);
    const { kv } = await backend.get(key);
    assert.equal(kv!.value, encoded(bound));
    // The cached pod and its kept JSON (the stored text with the revision spliced in: what its
    // watchers are sent) are what a stringify of the pod read back gives; the pod before is unchanged.
    const cached = pods.watchCache!.current(key);
    assert.equal(JSON.stringify(cached), JSON.stringify(bound));
    assert.equal(renderedJSON(cached), JSON.stringify(bound));
    assert.equal(JSON.stringify(cachedBefore), textBefore);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(sent, [JSON.stringify(bound)]);
  });
}

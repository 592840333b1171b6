/**
 * The dashboard's pod summary (apiserver/pod-summary): the card rules
 * (state, owner group) table-driven, and the counts over a real registry
 * (in-memory SQLite) following creates, status changes, binds and deletes,
 * by node and by namespace, with the by-node index and change notices.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { Registry } from '../../src/registry/registry.js';
import { realClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/log.js';
import { ownerOf, podState } from '../../src/api/pod-card.js';
import { PodSummary, type SummaryChange } from '../../src/apiserver/pod-summary/summary.js';
import { SnapshotCache } from '../../src/apiserver/pod-summary/snapshot-cache.js';
import { tallyKey, totalsOf } from '../../src/api/pod-tally.js';

const owner = (kind: string, name: string, controller = true) => ({ apiVersion: 'apps/v1', kind, name, uid: `${kind}-${name}`, controller });

describe('pod card rules', () => {
  const cases: Array<[string, Pod, ReturnType<typeof ownerOf>]> = [
    ['no owner: a bare pod', { metadata: { name: 'p' } }, { kind: 'Pod', name: '' }],
    ['a DaemonSet', { metadata: { name: 'p', ownerReferences: [owner('DaemonSet', 'ds')] } }, { kind: 'DaemonSet', name: 'ds' }],
    ['a ReplicaSet with pod-template-hash: its Deployment', { metadata: { name: 'p', labels: { 'pod-template-hash': 'abc12' }, ownerReferences: [owner('ReplicaSet', 'web-abc12')] } }, { kind: 'Deployment', name: 'web' }],
    ['a ReplicaSet without the label', { metadata: { name: 'p', ownerReferences: [owner('ReplicaSet', 'rs')] } }, { kind: 'ReplicaSet', name: 'rs' }],
    ['the controller among owners', { metadata: { name: 'p', ownerReferences: [owner('ConfigMap', 'x', false), owner('Job', 'j')] } }, { kind: 'Job', name: 'j' }],
    ['an unknown controller kind: bare', { metadata: { name: 'p', ownerReferences: [owner('Widget', 'w')] } }, { kind: 'Pod', name: 'w' }],
    ['a mirror pod: static, by node', { metadata: { name: 'p', annotations: { 'kubernetes.io/config.mirror': 'h' } }, spec: { nodeName: 'n1', containers: [] } }, { kind: 'Static', name: 'n1' }],
    ['owned by its Node: static', { metadata: { name: 'p', ownerReferences: [owner('Node', 'n1')] }, spec: { nodeName: 'n1', containers: [] } }, { kind: 'Static', name: 'n1' }],
  ];
  for (const [what, pod, want] of cases) it(`owner: ${what}`, () => assert.deepEqual(ownerOf(pod), want));

  const states: Array<[string, Pod, string]> = [
    ['no status', {}, 'pending'],
    ['Running and Ready', { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, 'ready'],
    ['Running, not Ready', { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } }, 'running'],
    ['Succeeded', { status: { phase: 'Succeeded' } }, 'succeeded'],
    ['Failed', { status: { phase: 'Failed' } }, 'failed'],
    ['terminating wins over the phase', { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' }, status: { phase: 'Running' } }, 'terminating'],
  ];
  for (const [what, pod, want] of states) it(`state: ${what}`, () => assert.equal(podState(pod), want));
});

/** Resolves once `check` holds (the watch delivers asynchronously). */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const pod = (name: string, node: string | undefined, owners: object[] = [], labels: Record<string, string> = {}) =>
  ({ metadata: { name, labels, ownerReferences: owners }, spec: { ...(node ? { nodeName: node } : {}), containers: [{ name: 'c', image: 'busybox' }] } });

describe('PodSummary', () => {
  let registry: Registry;
  let summary: PodSummary;

  before(async () => {
    registry = new Registry(openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: silentLogger }), realClock);
    for (const ns of ['a', 'b']) await registry.namespaces.create(undefined, { metadata: { name: ns } });
    summary = new PodSummary(() => registry.store('', 'v1', 'pods'), silentLogger);
  });

  after(async () => {
    summary.close();
    await registry.backend.close();
  });

  it('counts by node, owner group and state; follows status, binds and deletes; by namespace', async () => {
    const pods = registry.store('', 'v1', 'pods')!;
    for (let i = 0; i < 30; i++) await pods.create('a', pod(`web-abc12-${i}`, 'n1', [owner('ReplicaSet', 'web-abc12')], { 'pod-template-hash': 'abc12' }));
    await pods.create('a', pod('ds-1', 'n2', [owner('DaemonSet', 'ds')]));
    await pods.create('b', pod('lonely', undefined));
    await summary.ready();
    const nodes = summary.nodes();
    assert.deepEqual(nodes.n1, [{ kind: 'Deployment', namespace: 'a', name: 'web', counts: [0, 0, 30, 0, 0, 0] }]);
    assert.deepEqual(nodes.n2, [{ kind: 'DaemonSet', namespace: 'a', name: 'ds', counts: [0, 0, 1, 0, 0, 0] }]);
    assert.deepEqual(nodes[''], [{ kind: 'Pod', namespace: 'b', name: '', counts: [0, 0, 1, 0, 0, 0] }]);
    assert.deepEqual(Object.keys(summary.nodes('b')), [''], 'namespace b has only its pending pod');
    assert.deepEqual(summary.podsOn('n1', undefined, 5).items.map((p) => p.metadata!.name), ['web-abc12-0', 'web-abc12-1', 'web-abc12-10', 'web-abc12-11', 'web-abc12-12']);
    assert.equal(summary.podsOn('n1', undefined, 5).total, 30);
    assert.equal(summary.podsOn('n1', 'b', 5).total, 0);

    const changes: SummaryChange[] = [];
    const unsubscribe = summary.subscribe('a', (c) => changes.push(c));
    const ready = await pods.update('a', 'ds-1', { ...await pods.get('a', 'ds-1'), status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, { subresource: 'status' });
    await until(() => summary.nodes().n2?.[0].counts[0] === 1, 'the Ready pod counted');
    assert.deepEqual(summary.nodes().n2[0].counts, [1, 0, 0, 0, 0, 0]);
    assert.ok(summary.revision >= Number((ready as Pod).metadata!.resourceVersion), 'the revision covers the last event');
    assert.deepEqual(changes, [{ nodes: new Set(['n2']) }]);

    // A pod of namespace b bound to n2: a's subscriber hears nothing of it.
    await pods.guaranteedUpdate('b', 'lonely', (p: Pod) => ({ ...p, spec: { ...p.spec!, nodeName: 'n2' } }), { subresource: 'binding' });
    await until(() => summary.nodes().n2?.length === 2, 'the bound pod moved to n2');
    assert.equal(summary.nodes()[''], undefined, 'the pending column is gone');
    assert.equal(changes.length, 1);

    await pods.delete('a', 'web-abc12-0');
    await until(() => summary.nodes().n1?.[0].counts[2] === 29, 'the delete counted');
    unsubscribe();
  });

  it('totals by owner kind and phase follow the same events, by namespace, equal to counting the pods listed', async () => {
    const pods = registry.store('', 'v1', 'pods')!;
    await summary.ready();
    await pods.create('b', pod('job-1', 'n1', [owner('Job', 'j')]));
    await pods.update('b', 'job-1', { ...await pods.get('b', 'job-1'), status: { phase: 'Succeeded' } }, { subresource: 'status' });
    await until(() => summary.totals('b').phases.Succeeded === 1, 'the Job pod Succeeded');
    const listed = async (ns?: string) => totalsOf(((await pods.list(ns, {})) as { items: Pod[] }).items);
    assert.deepEqual(summary.totals(), await listed());
    assert.deepEqual(summary.totals('a'), await listed('a'));
    assert.deepEqual(summary.totals('b'), await listed('b'));
    assert.deepEqual(summary.totals('b').owners, { Job: [0, 0, 0, 1, 0, 0], Pod: [0, 0, 1, 0, 0, 0] });
    assert.equal(summary.totals().owners.Deployment?.[2], 29);
    assert.deepEqual(summary.totals('none'), { pods: 0, phases: { Pending: 0, Running: 0, Succeeded: 0, Failed: 0, Unknown: 0 }, owners: {} });
    await pods.delete('b', 'job-1');
    await until(() => summary.totals('b').owners.Job === undefined, 'the Job pod gone from the totals');
    assert.deepEqual(summary.totals(), await listed());
  });

  it('writes the nodes as JSON equal to nodes(), kept per column until it changes; the cache follows the generation', async () => {
    const pods = registry.store('', 'v1', 'pods')!;
    await summary.ready();
    assert.deepEqual(JSON.parse(summary.nodesJSON()), summary.nodes());
    assert.deepEqual(JSON.parse(summary.nodesJSON('a')), summary.nodes('a'));
    assert.deepEqual(JSON.parse(summary.nodesJSON(undefined, ['n1', 'gone'])), summary.nodes(undefined, ['n1', 'gone']));
    let made = 0;
    const cache = new SnapshotCache(summary, (ns) => `${++made}:${ns ?? ''}`);
    assert.equal(cache.get(undefined).text, '1:');
    assert.equal(cache.get(undefined).text, '1:', 'unchanged: the same answer');
    assert.equal(cache.get('a').text, '2:a');
    const before = summary.generation;
    await pods.create('a', pod('late', 'n3'));
    await until(() => summary.generation > before, 'the create applied');
    assert.deepEqual(JSON.parse(summary.nodesJSON()).n3, [{ kind: 'Pod', namespace: 'a', name: '', counts: [0, 0, 1, 0, 0, 0] }], 'the changed column written again');
    assert.deepEqual(JSON.parse(summary.nodesJSON()), summary.nodes());
    assert.equal(cache.get(undefined).text, '3:', 'changed: made again');
    const { gunzipSync } = await import('node:zlib');
    assert.equal(gunzipSync(await cache.get(undefined).gzip()).toString(), '3:');
  });
});

describe('pod tally rules', () => {
  const cases: Array<[string, Pod, { kind: string; state: string; phase: string }]> = [
    ['no status yet: Pending', { metadata: { name: 'p' } }, { kind: 'Pod', state: 'pending', phase: 'Pending' }],
    ['a DaemonSet pod Running and Ready', { metadata: { name: 'p', ownerReferences: [owner('DaemonSet', 'd')] }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
      { kind: 'DaemonSet', state: 'ready', phase: 'Running' }],
    ['a mirror pod', { metadata: { name: 'p', annotations: { 'kubernetes.io/config.mirror': 'x' } }, spec: { nodeName: 'n', containers: [] }, status: { phase: 'Running' } },
      { kind: 'Static', state: 'running', phase: 'Running' }],
    ['terminating keeps its phase', { metadata: { name: 'p', deletionTimestamp: '2026-01-01T00:00:00Z' }, status: { phase: 'Running' } }, { kind: 'Pod', state: 'terminating', phase: 'Running' }],
    ['Unknown', { metadata: { name: 'p' }, status: { phase: 'Unknown' } }, { kind: 'Pod', state: 'pending', phase: 'Unknown' }],
  ];
  const kinds = ['DaemonSet', 'StatefulSet', 'Deployment', 'ReplicaSet', 'Job', 'Static', 'Pod'];
  const states = ['ready', 'running', 'pending', 'succeeded', 'failed', 'terminating'];
  const phases = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'];
  for (const [what, p, want] of cases) {
    it(what, () => {
      const k = tallyKey(p);
      assert.deepEqual({ kind: kinds[k.kind], state: states[k.state], phase: phases[k.phase] }, want);
    });
  }
});

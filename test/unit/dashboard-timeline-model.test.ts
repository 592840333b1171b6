/**
 * The dashboard timeline's rules (web/src/timeline-model.ts), table-driven:
 * what a pod's or a node's watch event means, an Event of either API as a
 * line, the filter, and the bounded ring. The page's code is built for the
 * browser, so the test bundles that one module with esbuild (as
 * scripts/bundle-web.mjs does) and imports the result.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { repoRoot } from '../e2e/harness.js';

// The module is bundled at run time, outside this (Node) program: typed loosely here; the page's build type-checks it.
let m: any;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-timeline-model-'));
  try {
    const out = join(dir, 'timeline-model.mjs');
    await build({ entryPoints: [join(repoRoot, 'web', 'src', 'timeline-model.ts')], outfile: out, bundle: true, format: 'esm', platform: 'neutral', logLevel: 'warning' });
    m = await import(pathToFileURL(out).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const pod = (o: { node?: string; ready?: boolean; phase?: string; deleting?: boolean } = {}): Pod => ({
  metadata: { name: 'web-0', namespace: 'default', ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  spec: { nodeName: o.node, containers: [] },
  status: { phase: o.phase ?? 'Pending', conditions: o.ready === undefined ? [] : [{ type: 'Ready', status: o.ready ? 'True' : 'False' }] },
});

const node = (o: { ready?: 'True' | 'False' | 'Unknown'; taints?: string[]; cordoned?: boolean } = {}): Node => ({
  metadata: { name: 'worker1' },
  spec: { unschedulable: o.cordoned, taints: (o.taints ?? []).map((t) => { const [kv, effect] = t.split(':'); const [key, value] = kv.split('='); return { key, value, effect }; }) },
  status: { conditions: o.ready ? [{ type: 'Ready', status: o.ready }] : [] },
});

describe('podChanges', () => {
  const cases: Array<[string, Pod | undefined, Pod | undefined, string[]]> = [
    ['created, not yet scheduled', undefined, pod(), ['Created']],
    ['created already bound (nodeName set by the creator)', undefined, pod({ node: 'worker1' }), ['Created', 'Scheduled']],
    ['bound by the scheduler', pod(), pod({ node: 'worker1' }), ['Scheduled']],
    ['becomes Ready', pod({ node: 'worker1', ready: false, phase: 'Running' }), pod({ node: 'worker1', ready: true, phase: 'Running' }), ['Ready']],
    ['loses Ready', pod({ node: 'worker1', ready: true, phase: 'Running' }), pod({ node: 'worker1', ready: false, phase: 'Running' }), ['NotReady']],
    ['deletion requested', pod({ node: 'worker1', ready: true }), pod({ node: 'worker1', ready: true, deleting: true }), ['Terminating']],
    ['finished', pod({ node: 'worker1', phase: 'Running' }), pod({ node: 'worker1', phase: 'Succeeded' }), ['Succeeded']],
    ['failed', pod({ node: 'worker1', phase: 'Running' }), pod({ node: 'worker1', phase: 'Failed' }), ['Failed']],
    ['deleted', pod({ node: 'worker1' }), undefined, ['Deleted']],
    ['a change the timeline does not show (same state)', pod({ node: 'worker1', ready: true }), pod({ node: 'worker1', ready: true }), []],
  ];
  for (const [name, before, after, want] of cases) {
    it(name, () => assert.deepEqual(m.podChanges(before, after).map((e: { reason: string }) => e.reason), want));
  }
  it('says where a deleted pod was', () => assert.equal(m.podChanges(pod({ node: 'worker2' }), undefined)[0].message, 'pod web-0 deleted from worker2'));
});

describe('nodeChanges', () => {
  const cases: Array<[string, Node | undefined, Node | undefined, string[]]> = [
    ['joins', undefined, node({ ready: 'True' }), ['Joined']],
    ['goes NotReady', node({ ready: 'True' }), node({ ready: 'False' }), ['NotReady']],
    ['goes Unknown (kubelet silent)', node({ ready: 'True' }), node({ ready: 'Unknown' }), ['Unknown']],
    ['Ready again', node({ ready: 'Unknown' }), node({ ready: 'True' }), ['Ready']],
    ['tainted NoExecute', node({ ready: 'True' }), node({ ready: 'True', taints: ['evict=now:NoExecute'] }), ['Tainted']],
    ['one taint swapped for another', node({ taints: ['a=1:NoSchedule'] }), node({ taints: ['b=2:NoSchedule'] }), ['Tainted', 'Untainted']],
    ['cordoned', node({}), node({ cordoned: true }), ['Cordoned']],
    ['uncordoned', node({ cordoned: true }), node({}), ['Uncordoned']],
    ['removed', node({ ready: 'True' }), undefined, ['Removed']],
    ['a heartbeat (nothing the timeline shows)', node({ ready: 'True' }), node({ ready: 'True' }), []],
  ];
  for (const [name, before, after, want] of cases) {
    it(name, () => assert.deepEqual(m.nodeChanges(before, after).map((e: { reason: string }) => e.reason), want));
  }
  it('names the taint as kubectl spells it, a NoExecute one as a warning', () => {
    const [e] = m.nodeChanges(node(), node({ taints: ['evict=now:NoExecute'] }));
    assert.equal(e.message, 'taint evict=now:NoExecute added');
    assert.equal(e.type, 'Warning');
  });
});

describe('eventEntry', () => {
  it('reads a core/v1 Event', () => {
    const e = m.eventEntry({ metadata: { name: 'x' }, involvedObject: { kind: 'Node', name: 'ghost' }, reason: 'NodeNotReady', message: 'Node ghost status is now: NodeNotReady',
      type: 'Normal', count: 2, firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:05Z', source: { component: 'node-controller' } });
    assert.deepEqual({ kind: e.kind, name: e.name, reason: e.reason, message: e.message, count: e.count, component: e.component, at: e.at },
      { kind: 'Node', name: 'ghost', reason: 'NodeNotReady', message: 'Node ghost status is now: NodeNotReady', count: 2, component: 'node-controller', at: '2026-01-01T00:00:05Z' });
  });
  it('reads an events.k8s.io/v1 Event (regarding, note, reportingController)', () => {
    const e = m.eventEntry({ metadata: { name: 'y' }, eventTime: '2026-01-01T00:00:01.000000Z', regarding: { kind: 'Pod', namespace: 'default', name: 'plain' },
      reason: 'TaintManagerEviction', note: 'Marking for deletion Pod default/plain', type: 'Normal', reportingController: 'taint-eviction-controller' });
    assert.deepEqual({ kind: e.kind, namespace: e.namespace, name: e.name, message: e.message, component: e.component, at: e.at },
      { kind: 'Pod', namespace: 'default', name: 'plain', message: 'Marking for deletion Pod default/plain', component: 'taint-eviction-controller', at: '2026-01-01T00:00:01.000000Z' });
  });
});

describe('entryMatches', () => {
  const line = { seq: 0, at: '', source: 'watch' as const, kind: 'Pod', namespace: 'default', name: 'web-0', reason: 'Created', message: '', type: 'Normal' as const };
  const any = { namespace: '', kind: '', name: '', source: '' };
  const cases: Array<[string, Partial<typeof any>, boolean]> = [
    ['no filter', {}, true], ['its namespace', { namespace: 'default' }, true], ['another namespace', { namespace: 'team-a' }, false],
    ['its kind', { kind: 'Pod' }, true], ['another kind', { kind: 'Node' }, false], ['a part of its name', { name: 'web' }, true],
    ['another name', { name: 'db' }, false], ['its source', { source: 'watch' }, true], ['the other source', { source: 'event' }, false],
  ];
  for (const [name, f, want] of cases) it(name, () => assert.equal(m.entryMatches(line, { ...any, ...f }), want));
});

describe('Ring', () => {
  it('keeps the newest `capacity` items, oldest first, and returns what it drops', () => {
    const r = new m.Ring(3);
    assert.deepEqual([1, 2, 3].map((i) => r.push(i)), [undefined, undefined, undefined]);
    assert.equal(r.push(4), 1);
    assert.equal(r.push(5), 2);
    assert.deepEqual(r.toArray(), [3, 4, 5]);
    assert.deepEqual([0, 1, 2].map((i) => r.at(i)), [3, 4, 5]);
    assert.equal(r.length, 3);
  });
});

describe('slimPod', () => {
  it('keeps what the map draws and drops the rest', () => {
    const p = m.slimPod({ metadata: { name: 'a', namespace: 'default', labels: { app: 'x', 'pod-template-hash': 'h' }, annotations: { big: 'y' } },
      spec: { nodeName: 'n', containers: [{ name: 'c', image: 'busybox' }] },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }, { type: 'Initialized', status: 'True' }] } });
    assert.deepEqual(p.metadata?.labels, { 'pod-template-hash': 'h' });
    assert.equal(p.metadata?.annotations, undefined);
    assert.deepEqual(p.spec?.containers, []);
    assert.deepEqual(p.status?.conditions?.map((c: { type: string }) => c.type), ['Ready']);
  });
});

/**
 * The watch cache's index of pods by spec.nodeName: a list or initial watch of one node's pods
 * (every kubelet's) reads that node's keys, in key order, and the index follows every event:
 * a pod bound, moved, deleted, created on a node.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NodeIndex, nodeNameOf } from '../../src/registry/watch-cache/node-index.js';

const pod = (node?: unknown) => ({ metadata: { name: 'p' }, spec: node === undefined ? {} : { nodeName: node } });
const key = (ns: string, name: string) => `/registry/pods/${ns}/${name}`;

describe('watch cache node index', () => {
  it('reads the node as the spec.nodeName field selector does: unscheduled is ""', () => {
    const cases: [unknown, string][] = [[pod('n1'), 'n1'], [pod(), ''], [pod(''), ''], [{ metadata: {} }, ''], [pod(7), '']];
    for (const [obj, want] of cases) assert.equal(nodeNameOf(obj), want, JSON.stringify(obj));
  });

  it('starts from the cached objects and answers each node in key order, under a prefix', () => {
    const objects = new Map<string, unknown>([
      [key('b', 'x'), pod('n1')], [key('a', 'z'), pod('n1')], [key('a', 'y'), pod('n2')], [key('a', 'w'), pod()],
    ]);
    const index = new NodeIndex(objects);
    assert.deepEqual(index.keysOn('n1', '/registry/pods/'), [key('a', 'z'), key('b', 'x')]);
    assert.deepEqual(index.keysOn('n1', '/registry/pods/a/'), [key('a', 'z')]);
    assert.deepEqual(index.keysOn('n2', '/registry/pods/'), [key('a', 'y')]);
    assert.deepEqual(index.keysOn('', '/registry/pods/'), [key('a', 'w')]);
    assert.deepEqual(index.keysOn('n3', '/registry/pods/'), []);
  });

  it('follows creates, bindings, moves and deletes', () => {
    const index = new NodeIndex(new Map());
    const steps: { what: string; key: string; prev: unknown; next: unknown; want: Record<string, string[]> }[] = [
      { what: 'created unscheduled', key: key('a', 'p1'), prev: undefined, next: pod(), want: { '': [key('a', 'p1')], n1: [] } },
      { what: 'bound to n1', key: key('a', 'p1'), prev: pod(), next: pod('n1'), want: { '': [], n1: [key('a', 'p1')] } },
      { what: 'created on n1', key: key('a', 'p0'), prev: undefined, next: pod('n1'), want: { n1: [key('a', 'p0'), key('a', 'p1')] } },
      { what: 'updated, same node', key: key('a', 'p0'), prev: pod('n1'), next: pod('n1'), want: { n1: [key('a', 'p0'), key('a', 'p1')] } },
      { what: 'moved to n2 (a delete and a create under one key)', key: key('a', 'p0'), prev: pod('n1'), next: pod('n2'), want: { n1: [key('a', 'p1')], n2: [key('a', 'p0')] } },
      { what: 'deleted', key: key('a', 'p1'), prev: pod('n1'), next: undefined, want: { n1: [], n2: [key('a', 'p0')] } },
    ];
    for (const s of steps) {
      index.apply(s.key, s.prev, s.next);
      for (const [node, keys] of Object.entries(s.want)) assert.deepEqual(index.keysOn(node, '/registry/pods/'), keys, `${s.what}: ${node}`);
    }
  });
});

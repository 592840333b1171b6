/**
 * Unknown fields are dropped as decoding into upstream's Go structs drops
 * them (fieldValidation Ignore and Warn), while maps, RawExtensions and
 * preserve-unknown-fields subtrees keep every member.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findUnknownFields, pruneUnknownFields } from '../../src/api/schema/index.js';

const daemonSet = () => ({
  apiVersion: 'apps/v1', kind: 'DaemonSet', topLevel: true,
  metadata: { name: 'ds', labels: { 'any-key': 'v' }, annotations: { 'example.com/a': 'b' }, metaExtra: 1 },
  spec: {
    selector: { matchLabels: { app: 'x' } },
    template: {
      metadata: { labels: { app: 'x' } },
      spec: {
        containers: [{ name: 'c', image: 'busybox', foo: { bar: [1, 2] }, resources: { limits: { cpu: '1' } } }, { name: 'd', image: 'busybox' }],
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        specExtra: null,
      },
    },
  },
  status: { numberReady: 0, statusExtra: 'x' },
});

describe('pruneUnknownFields', () => {
  it('drops top-level and nested unknown fields and keeps everything declared', () => {
    const obj = daemonSet();
    const want = daemonSet() as any;
    delete want.topLevel;
    delete want.metadata.metaExtra;
    delete want.spec.template.spec.containers[0].foo;
    delete want.spec.template.spec.specExtra;
    delete want.status.statusExtra;
    assert.equal(pruneUnknownFields('apps/v1/DaemonSet', obj), 5);
    assert.deepEqual(obj, want);
    assert.deepEqual(findUnknownFields('apps/v1/DaemonSet', obj), []);
  });

  it('keeps map keys (labels, annotations, nodeSelector, resource lists)', () => {
    const obj = daemonSet();
    pruneUnknownFields('apps/v1/DaemonSet', obj);
    assert.deepEqual(obj.metadata.labels, { 'any-key': 'v' });
    assert.deepEqual(obj.metadata.annotations, { 'example.com/a': 'b' });
    assert.deepEqual(obj.spec.template.spec.nodeSelector, { 'kubernetes.io/os': 'linux' });
    assert.deepEqual(obj.spec.template.spec.containers[0].resources, { limits: { cpu: '1' } });
  });

  it('keeps RawExtension content whole (ControllerRevision.data)', () => {
    const data = { spec: { template: { anything: { goes: [1, { deep: true }] }, $patch: 'replace' } } };
    const rev = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, revision: 1, data: structuredClone(data), extra: 1 };
    assert.equal(pruneUnknownFields('apps/v1/ControllerRevision', rev), 1);
    assert.deepEqual(rev.data, data);
    assert.equal('extra' in rev, false);
  });

  it('leaves values of the wrong type and unknown kinds alone', () => {
    const odd = { metadata: 'not an object', spec: [1, 2] };
    assert.equal(pruneUnknownFields('v1/Pod', odd), 0);
    assert.deepEqual(odd, { metadata: 'not an object', spec: [1, 2] });
    const unknownKind = { x: 1 };
    assert.equal(pruneUnknownFields('example.com/v1/Widget', unknownKind), 0);
    assert.deepEqual(unknownKind, { x: 1 });
  });

  it('drops an own __proto__ member as any other unknown field', () => {
    const obj = JSON.parse('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"__proto__":{"polluted":true}}');
    assert.equal(pruneUnknownFields('v1/ConfigMap', obj), 1);
    assert.deepEqual(Object.keys(obj), ['apiVersion', 'kind', 'metadata']);
    assert.equal(({} as any).polluted, undefined);
  });

  it('walks wide and long lists without recursion', () => {
    const containers = Array.from({ length: 20000 }, (_, i) => ({ name: `c${i}`, image: 'i', x: i }));
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers } };
    assert.equal(pruneUnknownFields('v1/Pod', pod), 20000);
    assert.deepEqual(pod.spec.containers[19999], { name: 'c19999', image: 'i' });
  });
});

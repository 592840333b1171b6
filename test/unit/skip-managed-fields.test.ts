/**
 * Watch events parsed without object.metadata.managedFields (client/skip-managed-fields.ts) give
 * exactly what parsing the whole event and then stripping managedFields gives; text where the
 * member is not certainly object.metadata.managedFields is left whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { skipManagedFields } from '../../src/client/skip-managed-fields.js';
import { stripManagedFields } from '../../src/client/informer.js';

const managedFields = [
  { manager: 'k8ts-controller-manager', operation: 'Update', apiVersion: 'v1', time: '2026-12-04T22:00:00Z', fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} }, 'f:ownerReferences': { '.': {}, 'k:{"uid":"u-1"}': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {} } } } } },
  { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', subresource: 'status', time: '2026-12-04T22:00:01Z', fieldsType: 'FieldsV1',
    fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} } }, 'f:phase': {} } } },
];

function pod(meta: Record<string, unknown>): Pod {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', uid: 'u-2', resourceVersion: '7', labels: { app: 'a"]}[{' }, ...meta },
    spec: { containers: [{ name: 'c', image: 'i', args: ['"managedFields":[', '\\', '\\"', ']}'] }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  } as Pod;
}

/**
 * What an informer with stripManagedFields keeps from the event's text, as JSON: the strip leaves
 * the member undefined (keeping metadata a fast object), the cut text never has it; both
 * serialize, and read, the same.
 */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
const reference = (line: string) => { const e = JSON.parse(line); stripManagedFields(e.object); return plain(e); };

const cases: [string, string][] = [
  ['managedFields last in metadata', JSON.stringify({ type: 'MODIFIED', object: pod({ managedFields }) })],
  ['managedFields first in metadata', JSON.stringify({ type: 'ADDED', object: { ...pod({}), metadata: { managedFields, ...pod({}).metadata } } })],
  ['managedFields alone in metadata', JSON.stringify({ type: 'ADDED', object: { ...pod({}), metadata: { managedFields } } })],
  ['managedFields in the middle', JSON.stringify({ type: 'DELETED', object: { ...pod({}), metadata: { name: 'p', managedFields, annotations: { a: 'b' } } } })],
  ['no managedFields', JSON.stringify({ type: 'MODIFIED', object: pod({}) })],
  ['an annotation holding the text', JSON.stringify({ type: 'MODIFIED', object: pod({ annotations: { x: '{"managedFields":[1]}' }, managedFields }) })],
  ['a bookmark', '{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12"}}}'],
];

for (const [name, line] of cases) {
  test(`skipManagedFields: ${name}`, () => {
    const cut = skipManagedFields(line);
    assert.deepEqual(JSON.parse(cut), reference(line));
    assert.ok(!JSON.stringify(JSON.parse(cut).object.metadata).includes('"managedFields"'));
    assert.ok(cut.length <= line.length);
  });
}

test('skipManagedFields leaves a field of that name outside object.metadata whole', () => {
  // A custom resource may have a spec field so named; it is the resource's data, not metadata.
  const cr = JSON.stringify({ type: 'ADDED', object: { apiVersion: 'x/v1', kind: 'X', spec: { managedFields: [{ a: 1 }] }, metadata: { name: 'x', managedFields } } });
  const cut = skipManagedFields(cr);
  assert.equal(cut, cr, 'the first match is in spec: the line is parsed whole');
  const nested = JSON.stringify({ type: 'ADDED', object: { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'd' }, spec: { template: { metadata: { managedFields } } } } });
  assert.equal(skipManagedFields(nested), nested, 'a template\'s metadata is not the object\'s');
});

test('skipManagedFields leaves text it cannot read whole', () => {
  for (const line of [
    '{"type":"ADDED","object":{"metadata":{"managedFields":[{"a":"unterminated}]}}',
    '{"type":"ADDED","object":{"metadata":{"managedFields":[{"a":1}',
    '{"type":"ADDED","object":{"metadata":{"name":"x", "managedFields":[]}}}',
  ]) assert.equal(skipManagedFields(line), line);
});

for (const [name, line] of cases) {
  test(`skipManagedFields of a bare object (a write's answer): ${name}`, () => {
    const object = JSON.stringify(JSON.parse(line).object);
    const cut = skipManagedFields(object, true);
    assert.deepEqual(JSON.parse(cut), (reference(line) as { object: unknown }).object);
    assert.ok(!JSON.stringify(JSON.parse(cut).metadata).includes('"managedFields"'));
  });
}

test('skipManagedFields of a bare object leaves a nested metadata whole', () => {
  const ds = JSON.stringify({ apiVersion: 'apps/v1', kind: 'DaemonSet', spec: { template: { metadata: { managedFields } } }, metadata: { name: 'd', managedFields } });
  assert.equal(skipManagedFields(ds, true), ds, 'the first match is a template\'s: the text is parsed whole');
  const event = JSON.stringify({ type: 'ADDED', object: pod({ managedFields }) });
  assert.equal(skipManagedFields(event, true), event, 'an event\'s object.metadata is not a bare object\'s metadata');
});

/**
 * api/managedfields/create-cache.ts: a create's managed fields are remembered by the object's
 * shape (its JSON without name and namespace, non-empty strings that cannot change the set read
 * as one marker). Objects that differ only in such strings share one computation; anything that
 * changes the set (structure, an associative list's key fields, a set list's items, numbers,
 * empty against non-empty strings) is computed again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { createManagedFields } from '../../src/api/managedfields/create-cache.js';
import { typeForKind } from '../../src/api/managedfields/index.js';

const type = typeForKind('v1/Pod');

/** Creates each object through a fresh context and answers how many of them were computed. */
function computedCount(objects: { metadata?: unknown }[]): number {
  const context = `test-${Math.random()}`;
  let computed = 0;
  for (const o of objects) {
    createManagedFields(o, { type, context }, '2026-12-06T10:00:00Z', (): ManagedFieldsEntry[] => {
      computed++;
      return [{ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }];
    });
  }
  return computed;
}

const pod = (name: string, over: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', labels: { app: 'web' }, ...meta },
  spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }], nodeName: 'n1', ...over },
});

test('objects that differ only in name, namespace and non-empty strings share one computation', () => {
  assert.equal(computedCount([pod('a'), pod('b'), pod('c', { nodeName: 'n2' }), pod('d', {}, { namespace: 'other', labels: { app: 'db' } })]), 1);
  assert.equal(computedCount([pod('a'), pod('b', { containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80, protocol: 'TCP' }] }] })]), 1);
});

test('what can change the set is part of the key', () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>?][] = [
    ['a container of another name (a key field)', { containers: [{ name: 'd', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }] }],
    ['another port (a key field, a number)', { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 81, protocol: 'TCP' }] }] }],
    ['an empty string for a non-empty one', { nodeName: '' }],
    ['a field more', { hostname: 'h' }],
    ['a field less', { nodeName: undefined }],
    ['a number', { priority: 3 }],
    ['another label key', {}, { labels: { tier: 'web' } }],
    ['a finalizer (a set list item)', {}, { finalizers: ['x'] }],
  ];
  for (const [what, over, meta] of cases) assert.equal(computedCount([pod('a'), pod('b', over, meta)]), 2, what);
  assert.equal(computedCount([pod('a', {}, { finalizers: ['x'] }), pod('b', {}, { finalizers: ['x'] })]), 1, 'the same set list items');
});

test('an object without a name, or with managedFields of its own, is always computed', () => {
  assert.equal(computedCount([pod(''), pod('')]), 2);
  assert.equal(computedCount([pod('a', {}, { managedFields: [] }), pod('b', {}, { managedFields: [] })]), 2);
  assert.equal(computedCount([pod('a', {}, { namespace: '' }), pod('b', {}, { namespace: '' })]), 2);
});

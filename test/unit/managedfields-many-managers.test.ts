/**
 * Server-side apply on an object with many managers (issue #19, finding 4): an apply decodes and
 * re-encodes only the entries it changes (api/managedfields/stored.ts), and answers as upstream:
 * the applier's entry renewed, every other entry as it was stored, conflicts named, ownership moved
 * on force, a dropped field pruned; undecodable stored entries dropped, repeated ones merged.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { applyConfiguration, type ApplyContext } from '../../src/api/managedfields/index.js';
import { StatusError } from '../../src/api/status.js';

const managers = 2000;
const start = Date.parse('2026-01-02T00:00:00Z');
const at = (second: number) => new Date(start + second * 1000);
const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');

const ctxFor = (i: number, now: Date, force = false): ApplyContext => ({ kindKey: 'v1/ConfigMap', apiVersion: 'v1', manager: `manager-${i}`, force, now });
const config = (data: Record<string, string>): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'many' }, data });

const entryOf = (i: number, time: string): ManagedFieldsEntry => ({
  manager: `manager-${i}`, operation: 'Apply', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { [`f:key-${i}`]: {} } },
});

/** One ConfigMap as 2,000 applies of one key each, a second apart, leave it (as this server stores it). */
function manyManagers(): ConfigMap {
  const data: Record<string, string> = {};
  const managedFields: ManagedFieldsEntry[] = [];
  for (let i = 0; i < managers; i++) {
    data[`key-${i}`] = 'v1';
    managedFields.push(entryOf(i, rfc3339(at(i))));
  }
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'many', namespace: 'default', resourceVersion: '7', managedFields }, data };
}

/** A private copy, as the store hands one to each write. */
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('apply with 2,000 managers on one object', () => {
  it('a changed value renews the applier\'s entry alone and moves it last; the others are as stored', () => {
    const live = manyManagers();
    const out = applyConfiguration(copy(live), config({ 'key-7': 'v2' }), ctxFor(7, at(managers)));
    assert.equal(out.data['key-7'], 'v2');
    assert.equal(Object.keys(out.data).length, managers);
    const entries: ManagedFieldsEntry[] = out.metadata.managedFields;
    assert.equal(entries.length, managers);
    // Upstream's order: Apply entries by time, then manager.
    assert.deepEqual(entries.at(-1), entryOf(7, rfc3339(at(managers))));
    const others = live.metadata!.managedFields!.filter((e) => e.manager !== 'manager-7');
    assert.deepEqual(entries.slice(0, -1), others);
  });

  it('an unchanged apply keeps every entry and time', () => {
    const live = manyManagers();
    const out = applyConfiguration(copy(live), config({ 'key-1999': 'v1' }), ctxFor(1999, at(managers + 5)));
    assert.deepEqual(out.metadata.managedFields, live.metadata!.managedFields);
  });

  it('a new manager is added without touching the others', () => {
    const live = manyManagers();
    const out = applyConfiguration(copy(live), config({ 'key-new': 'x' }), ctxFor(managers, at(managers)));
    assert.equal(out.metadata.managedFields.length, managers + 1);
    assert.deepEqual(out.metadata.managedFields.at(-1), { ...entryOf(managers, rfc3339(at(managers))), fieldsV1: { 'f:data': { 'f:key-new': {} } } });
    assert.deepEqual(out.metadata.managedFields.slice(0, -1), live.metadata!.managedFields);
  });

  it('conflicts with the owner of another key, as upstream words it; force takes it and prunes the dropped key', () => {
    const live = manyManagers();
    assert.throws(() => applyConfiguration(copy(live), config({ 'key-7': 'v2' }), ctxFor(8, at(managers))), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 409);
      assert.equal(e.status.message, 'Apply failed with 1 conflict: conflict with "manager-7": .data.key-7');
      return true;
    });
    const out = applyConfiguration(copy(live), config({ 'key-7': 'v2' }), ctxFor(8, at(managers), true));
    assert.equal(out.data['key-7'], 'v2');
    // manager-8 no longer applies key-8, which nobody else owns: pruned.
    assert.equal(out.data['key-8'], undefined);
    assert.equal(Object.keys(out.data).length, managers - 1);
    const entries: ManagedFieldsEntry[] = out.metadata.managedFields;
    // manager-7 lost its only field: its entry is gone.
    assert.equal(entries.find((e) => e.manager === 'manager-7'), undefined);
    assert.deepEqual(entries.at(-1), { ...entryOf(8, rfc3339(at(managers))), fieldsV1: { 'f:data': { 'f:key-7': {} } } });
    assert.equal(entries.length, managers - 1);
  });

  it('managers applying one after another build the object the tests above start from', () => {
    // 500, not 2,000: each apply copies the whole object (as the store does), so the loop is quadratic.
    const count = 500;
    let live: ConfigMap | undefined;
    for (let i = 0; i < count; i++) live = applyConfiguration(live && copy(live), config({ [`key-${i}`]: 'v1' }), ctxFor(i, at(i)));
    const expected = manyManagers();
    assert.deepEqual(Object.keys(live!.data!), Object.keys(expected.data!).slice(0, count));
    assert.deepEqual(live!.metadata!.managedFields, expected.metadata!.managedFields!.slice(0, count));
  });
});

describe('apply over stored entries it cannot use as they are', () => {
  const live = (managedFields: unknown[]): ConfigMap => ({
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'many', resourceVersion: '3', managedFields: managedFields as ManagedFieldsEntry[] }, data: { a: '1', b: '2' },
  });

  it('a FieldsV1 that does not decode drops the live entries, as upstream (no conflict with them)', () => {
    const bad = { manager: 'old', operation: 'Update', apiVersion: 'v1', time: rfc3339(at(0)), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {}, 'x:bad': {} } } };
    const out = applyConfiguration(live([bad]), config({ a: '2' }), ctxFor(1, at(1)));
    assert.equal(out.data.a, '2');
    assert.deepEqual(out.metadata.managedFields.map((e: ManagedFieldsEntry) => e.manager), ['manager-1']);
  });

  it('repeated identifiers are merged into one entry, and the merged entry conflicts as one', () => {
    const part = (key: string) => ({ manager: 'old', operation: 'Update', apiVersion: 'v1', time: rfc3339(at(0)), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { [`f:${key}`]: {} } } });
    const out = applyConfiguration(live([part('a'), part('b')]), config({ c: '3' }), ctxFor(1, at(1)));
    assert.deepEqual(out.metadata.managedFields.find((e: ManagedFieldsEntry) => e.manager === 'old').fieldsV1, { 'f:data': { 'f:a': {}, 'f:b': {} } });
    assert.throws(() => applyConfiguration(live([part('a'), part('b')]), config({ b: '3' }), ctxFor(1, at(1))),
      (e: unknown) => e instanceof StatusError && e.status.message === 'Apply failed with 1 conflict: conflict with "old" using v1: .data.b');
  });
});

/**
 * A write through a subresource that owns part of the object (status) keeps upstream's member
 * order, spec before status, in storage, in the answer and in the watch cache
 * (registry/subresource-order.ts): the write deletes the members it does not own and puts the
 * stored ones back, which used to leave status first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Registry } from '../../src/registry/registry.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { realClock } from '../../src/util/clock.js';
import { silentLogger as quiet } from '../../src/util/log.js';
import { inStoredOrder } from '../../src/registry/subresource-order.js';

const podOrder = ['apiVersion', 'kind', 'metadata', 'spec', 'status'];

test('a status write leaves the pod in upstream\'s order, in storage, in its answer and in the watch cache', async (t) => {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  const registry = new Registry(backend, realClock);
  t.after(async () => { registry.closeWatchCache(); await backend.close(); });
  await registry.startWatchCache({ capacity: 100, logger: quiet });
  await registry.namespaces.create(undefined, { metadata: { name: 'ns1' } });
  const pods = registry.store('', 'v1', 'pods')!;
  const key = `${pods.resourcePrefix}ns1/a`;
  await pods.create('ns1', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } });
  // The body as a kubelet's status write sends it: status before spec, and a spec the write must not take.
  const answer = await pods.guaranteedUpdate('ns1', 'a', (p: Pod) => ({ apiVersion: p.apiVersion, kind: p.kind, metadata: p.metadata, status: { phase: 'Running', podIP: '10.0.0.5' }, spec: { ...p.spec!, nodeName: 'elsewhere' } }), { subresource: 'status', resultShared: true }) as Pod;
  assert.deepEqual(Object.keys(answer), podOrder);
  assert.equal(answer.spec!.nodeName, 'n1', 'the stored spec, not the body\'s');
  assert.equal(answer.status!.podIP, '10.0.0.5');
  const { kv } = await backend.get(key);
  assert.deepEqual(Object.keys(JSON.parse(kv!.value) as object), podOrder, 'as stored');
  await pods.watchCache!.waitFor(kv!.modRevision, 5_000);
  const cached = pods.watchCache!.current(key) as Pod;
  assert.deepEqual(Object.keys(cached), podOrder, 'as cached');
  assert.deepEqual(Object.keys(await pods.get('ns1', 'a') as object), podOrder, 'as read');
});

test('inStoredOrder: the stored order, members the stored object lacks after it, status last; the very same members', () => {
  const status = { phase: 'Running' };
  const spec = { nodeName: 'n' };
  const written: Record<string, unknown> = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'a' }, status, extra: 1, spec };
  const stored = { apiVersion: 'v1', kind: 'Pod', metadata: {}, status: {}, spec: {} };
  const out = inStoredOrder(written, stored);
  assert.deepEqual(Object.keys(out), ['apiVersion', 'kind', 'metadata', 'spec', 'extra', 'status']);
  assert.equal(out.status, status);
  assert.equal(out.spec, spec);
  assert.deepEqual(Object.keys(inStoredOrder({ b: 1, a: 2 }, {})), ['b', 'a'], 'nothing stored: its own order');
});

test('inStoredOrder: an object with an own __proto__ member comes back as it is', () => {
  const written = JSON.parse('{"status":{},"__proto__":{"x":1},"spec":{}}') as Record<string, unknown>;
  assert.equal(inStoredOrder(written, { spec: {}, status: {} }), written);
});

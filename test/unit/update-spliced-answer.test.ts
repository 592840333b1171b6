/**
 * An update whose body has no managedFields (a kubelet's Lease renewal or pod status write sent
 * without them) is answered, and sent to its watchers, as the stored text with the new revision
 * spliced in (stored-json.ts): the store moves metadata.resourceVersion after the managedFields it
 * appends (withResourceVersionLast), so the object's JSON is known without a second stringify. A
 * PUT to a kind whose strategy copies nothing of the old object (a Lease) reads the watch cache's
 * shared copy of the old object instead of a private parse, and leaves it as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Registry } from '../../src/registry/registry.js';
import { hasRenderedJSON, renderedJSON } from '../../src/registry/watch-cache/rendered-json.js';
import { lastMember, withResourceVersionLast } from '../../src/registry/stored-json.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { realClock } from '../../src/util/clock.js';
import { silentLogger as quiet } from '../../src/util/log.js';
import type { WatchEventOut } from '../../src/registry/types.js';

async function setup(t: { after(fn: () => Promise<void>): void }): Promise<Registry> {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  const registry = new Registry(backend, realClock);
  t.after(async () => { registry.closeWatchCache(); await backend.close(); });
  await registry.startWatchCache({ capacity: 1024, logger: quiet });
  for (const name of ['default', 'kube-node-lease']) await registry.namespaces.create(undefined, { metadata: { name } });
  return registry;
}

/** A body as a client sends back what it was answered, managedFields left out. */
function withoutManagedFields<T extends { metadata?: object }>(obj: T): T {
  const { managedFields: _m, ...metadata } = obj.metadata as { managedFields?: unknown };
  return { ...obj, metadata };
}

test('withResourceVersionLast moves resourceVersion to the end of metadata and leaves the rest', () => {
  const obj = { metadata: { name: 'a', resourceVersion: '7', managedFields: [] as unknown[] }, spec: {} };
  withResourceVersionLast(obj);
  assert.deepEqual(Object.keys(obj.metadata), ['name', 'managedFields', 'resourceVersion']);
  assert.equal(obj.metadata.resourceVersion, '7');
  const none = { metadata: { name: 'b' } };
  assert.equal(withResourceVersionLast(none).metadata, none.metadata);
  assert.equal(lastMember({ x: 1, y: 2 }), 'y');
});

test('a Lease renewal without managedFields is answered and watched as its spliced stored text; the cached old Lease is unchanged', async (t) => {
  const registry = await setup(t);
  const leases = registry.store('coordination.k8s.io', 'v1', 'leases')!;
  const fieldManager = { manager: 'kubelet' };
  const created: Lease = await leases.create('kube-node-lease', {
    metadata: { name: 'node-1' }, spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2026-12-06T04:00:00.000000Z' },
  } satisfies Lease, { fieldManager, resultShared: true });
  const key = leases.key('kube-node-lease', 'node-1');
  const cachedOld = leases.watchCache!.current(key);
  const oldText = JSON.stringify(cachedOld);
  const sent: string[] = [];
  const w = await leases.watch('kube-node-lease', { resourceVersion: created.metadata!.resourceVersion }, (e: WatchEventOut) => { sent.push(JSON.stringify(e.object)); }, () => {});
  t.after(() => w.close());

  const body = withoutManagedFields({ ...cachedOld, spec: { ...cachedOld.spec, renewTime: '2026-12-06T04:00:10.000000Z' } });
  const renewed: Lease = await leases.update('kube-node-lease', 'node-1', body, { fieldManager, resultShared: true });
  assert.equal(renewed.spec!.renewTime, '2026-12-06T04:00:10.000000Z');
  assert.equal(renewed.metadata!.managedFields?.[0]?.manager, 'kubelet');
  assert.equal(lastMember(renewed.metadata!), 'resourceVersion');
  // Seeded from the stored value by the write (no stringify), and equal to what a stringify gives.
  assert.equal(hasRenderedJSON(renewed), true);
  assert.equal(renderedJSON(renewed), JSON.stringify(renewed));
  assert.equal(JSON.stringify(cachedOld), oldText);
  assert.equal(leases.watchCache!.current(key), renewed);
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(sent, [JSON.stringify(renewed)]);
  assert.equal(JSON.stringify(await leases.get('kube-node-lease', 'node-1')), JSON.stringify(renewed));
});

test('a pod status write without managedFields is answered as its spliced stored text', async (t) => {
  const registry = await setup(t);
  const pods = registry.store('', 'v1', 'pods')!;
  const created: Pod = await pods.create('default', {
    metadata: { name: 'p' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] },
  } satisfies Pod, { fieldManager: { manager: 'kube-controller-manager' }, resultShared: true });
  const body = { metadata: withoutManagedFields(created).metadata, status: { phase: 'Running' } };
  const updated: Pod = await pods.update('default', 'p', body, { subresource: 'status', fieldManager: { manager: 'kubelet', subresource: 'status' }, resultShared: true });
  assert.equal(updated.status!.phase, 'Running');
  assert.deepEqual(updated.metadata!.managedFields!.map((e) => e.manager), ['kube-controller-manager', 'kubelet']);
  assert.equal(lastMember(updated.metadata!), 'resourceVersion');
  assert.equal(hasRenderedJSON(updated), true);
  assert.equal(renderedJSON(updated), JSON.stringify(updated));
  assert.equal(JSON.stringify(await pods.get('default', 'p')), JSON.stringify(updated));
});

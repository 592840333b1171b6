/**
 * A create with metadata.generateName whose generated name is taken (registry/store.ts): the
 * store generates another, as kube-apiserver 1.32 does (RetryGenerateName, GA: up to 8 names),
 * instead of answering 409 AlreadyExists to a client that never chose the name. A DaemonSet's
 * 5,000 pods (5 random characters of 27 each) draw a taken name in about every second rollout,
 * and a 409 stops the controller's slow-start batches for that sync.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { Registry } from '../../src/registry/registry.js';
import { Store, nameGenerationAttempts } from '../../src/registry/store.js';
import { StatusError } from '../../src/api/status.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { realClock } from '../../src/util/clock.js';
import { silentLogger as quiet } from '../../src/util/log.js';

/** A ConfigMap store whose generated names are `names`, in order. */
async function setup(t: { after(fn: () => Promise<void>): void }, names: string[]): Promise<{ cms: Store; generated: string[] }> {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  const registry = new Registry(backend, realClock);
  t.after(async () => { await backend.close(); });
  await registry.namespaces.create(undefined, { metadata: { name: 'ns1' } });
  const served = registry.store('', 'v1', 'configmaps')!;
  const generated: string[] = [];
  const cms = new Store(served.info, served.strategy, { backend, clock: realClock, generateName: (base) => { const n = `${base}${names.shift()}`; generated.push(n); return n; } });
  await cms.create('ns1', { metadata: { name: 'cm-taken' } });
  return { cms, generated };
}

test('a generated name that is taken is generated again: the create succeeds under the next name', async (t) => {
  const { cms, generated } = await setup(t, ['taken', 'taken', 'fresh']);
  const cm: ConfigMap = await cms.create('ns1', { metadata: { generateName: 'cm-' }, data: { a: 'b' } });
  assert.equal(cm.metadata!.name, 'cm-fresh');
  assert.deepEqual(generated, ['cm-taken', 'cm-taken', 'cm-fresh']);
  assert.equal((await cms.get('ns1', 'cm-fresh')).data.a, 'b');
  assert.equal((await cms.get('ns1', 'cm-taken')).data, undefined, 'the existing object is untouched');
});

test(`after ${nameGenerationAttempts} taken names the create is 409 AlreadyExists, as upstream's`, async (t) => {
  const { cms, generated } = await setup(t, Array(nameGenerationAttempts + 1).fill('taken'));
  await assert.rejects(cms.create('ns1', { metadata: { generateName: 'cm-' } }), (e: unknown) => e instanceof StatusError && e.status.code === 409 && e.status.reason === 'AlreadyExists');
  assert.equal(generated.length, nameGenerationAttempts);
});

test('a name the client chose is not replaced: 409 at once', async (t) => {
  const { cms, generated } = await setup(t, ['other']);
  await assert.rejects(cms.create('ns1', { metadata: { name: 'cm-taken', generateName: 'cm-' } }), (e: unknown) => e instanceof StatusError && e.status.code === 409);
  assert.deepEqual(generated, []);
});

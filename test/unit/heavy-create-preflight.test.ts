/**
 * The heavy lane's create preflight (apiserver/heavy/create-preflight.ts) settles in a worker what
 * the store would otherwise compute on the serving loop: a valid create's managedFields and the
 * stored-size refusal. Its answers must be the store's own: the same managedFields entry (byte for
 * byte, the store's time), and etcd's 500 for exactly the wide objects the store refuses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { Registry } from '../../src/registry/registry.js';
import { Store } from '../../src/registry/store.js';
import { StatusError } from '../../src/api/status.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import type { Clock } from '../../src/util/clock.js';
import { silentLogger as quiet } from '../../src/util/log.js';
import { readObjectBody, type ObjectBodyResult } from '../../src/apiserver/heavy/object-body.js';

const clock: Clock = { now: () => new Date('2026-12-06T01:00:00Z') };

async function setup(t: { after(fn: () => Promise<void>): void }) {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  const registry = new Registry(backend, clock);
  t.after(async () => { await backend.close(); });
  await registry.namespaces.create(undefined, { metadata: { name: 'ns1' } });
  const store = (group: string, version: string, plural: string): Store => {
    const served = registry.store(group, version, plural)!;
    return new Store(served.info, served.strategy, { backend, clock });
  };
  return { store };
}

/** What a worker answers for this create body (JSON, built-in kind, manager `m`). */
function preflight(s: Store, body: object, dryRun = false): ObjectBodyResult {
  const { group, version, kind } = s.info;
  return readObjectBody({
    body: Buffer.from(JSON.stringify(body)), type: 'application/json', into: { apiVersion: s.apiVersion, kind }, endpoint: { group, version, kind },
    endpointApiVersion: s.apiVersion, fieldValidation: 'Strict', builtIn: true, create: true, dryRun, manager: { name: 'm', hasStatus: s.strategy.hasStatus },
  });
}

const bodies: [string, string, string, object][] = [
  ['', 'v1', 'configmaps', { metadata: { name: 'cm', labels: { a: 'b' } }, data: { x: '1', y: '2' }, binaryData: { z: 'AA==' } }],
  ['', 'v1', 'pods', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80 }] }] }, status: { phase: 'Running' } }],
  ['apps', 'v1', 'deployments', { metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } }],
];

for (const [group, version, plural, body] of bodies) {
  test(`${plural}: the worker's managedFields are the store's, and the store takes them as they are`, async (t) => {
    const { store } = await setup(t);
    const s = store(group, version, plural);
    const { managedFields, refusal } = preflight(s, body);
    assert.equal(refusal, undefined);
    assert.ok(managedFields?.length === 1, 'one entry, for the create\'s manager');
    const computed = await s.create('ns1', structuredClone(body), { fieldManager: { manager: 'm' } });
    const given = await s.create('ns1', { ...structuredClone(body), metadata: { name: 'given' } }, { fieldManager: { manager: 'm' }, managedFields });
    assert.equal(JSON.stringify(given.metadata.managedFields), JSON.stringify(computed.metadata.managedFields));
  });
}

test('a body that sends managedFields of its own, or a name to generate, gets none from the worker', async (t) => {
  const { store } = await setup(t);
  const s = store('', 'v1', 'configmaps');
  const own: ManagedFieldsEntry = { manager: 'x', operation: 'Update', apiVersion: 'v1', time: '2020-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } };
  assert.equal(preflight(s, { metadata: { name: 'cm', managedFields: [own] }, data: { a: 'b' } }).managedFields, undefined);
  assert.equal(preflight(s, { metadata: { generateName: 'cm-' }, data: { a: 'b' } }).managedFields, undefined);
});

test('a store whose strategy defaults more than the kind (Node) computes its own', async (t) => {
  const { store } = await setup(t);
  const s = store('', 'v1', 'nodes');
  const bogus: ManagedFieldsEntry[] = [{ manager: 'm', operation: 'Update', apiVersion: 'v1', time: 'x', fieldsType: 'FieldsV1', fieldsV1: { 'f:bogus': {} } }];
  const node = await s.create(undefined, { metadata: { name: 'n1' }, spec: { podCIDR: '10.0.0.0/24' } }, { fieldManager: { manager: 'm' }, managedFields: bogus });
  assert.ok(!JSON.stringify(node.metadata.managedFields).includes('f:bogus'));
  assert.ok(JSON.stringify(node.metadata.managedFields).includes('f:podCIDRs'), 'the strategy\'s own default is tracked');
});

/** A ConfigMap of `keys` keys of `valueBytes` each. */
function wide(name: string, keys: number, valueBytes: number): object {
  const data: Record<string, string> = {};
  for (let i = 0; i < keys; i++) data[`k${i}`] = 'v'.repeat(valueBytes);
  return { metadata: { name }, data };
}

test('a wide ConfigMap whose managedFields take it past 1.5 MiB is refused in the worker, as the store refuses it', async (t) => {
  const { store } = await setup(t);
  const s = store('', 'v1', 'configmaps');
  // fuzz-bodies' default seed: 51,698 keys, a 1.4 MB body under the limit, its entry ~0.7 MB more.
  const body = wide('cm-wide', 51_698, 13);
  assert.ok(JSON.stringify(body).length < 1.5 * 1024 * 1024);
  assert.deepEqual(preflight(s, body).refusal, { name: 'cm-wide', tooLarge: true });
  await assert.rejects(s.create('ns1', structuredClone(body), { fieldManager: { manager: 'm' } }),
    (e: unknown) => e instanceof StatusError && e.status.code === 500 && e.status.message === 'etcdserver: request is too large');
  // A dry run is never refused for its size; it keeps the entry for the store.
  const dry = preflight(s, body, true);
  assert.equal(dry.refusal, undefined);
  assert.equal(dry.managedFields?.length, 1);
});

test('a wide ConfigMap under the limit with its managedFields is created with the worker\'s entry', async (t) => {
  const { store } = await setup(t);
  const s = store('', 'v1', 'configmaps');
  const body = wide('cm-ok', 30_000, 13);
  const { managedFields, refusal } = preflight(s, body);
  assert.equal(refusal, undefined);
  const created = await s.create('ns1', structuredClone(body), { fieldManager: { manager: 'm' }, managedFields });
  const computed = await s.create('ns1', { ...structuredClone(body), metadata: { name: 'cm-ok2' } }, { fieldManager: { manager: 'm' } });
  assert.equal(JSON.stringify(created.metadata.managedFields), JSON.stringify(computed.metadata.managedFields));
});

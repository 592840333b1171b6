/**
 * A paged list read from etcd (continue pages, or every list without the watch cache) costs etcd
 * one Range a page: remainingItemCount comes from that Range's Count, which etcd does not cut at
 * the limit, as upstream's etcd3 store takes it (getResp.Count - limit). A count-only Range
 * beside it walked etcd's index over every remaining key once more for each page (on etcd 3.4 a
 * limited Range walks them all anyway): 300 pages of `kubectl get pods -A` at 150,000 pods.
 * The Ranges are counted by the real etcd (its grpc_server_handled_total).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { Registry } from '../../src/registry/registry.js';
import { openEtcdBackend } from '../../src/storage/etcd/index.js';
import { realClock } from '../../src/util/clock.js';
import { startEtcd, type PrivateEtcd } from '../e2e/etcd.js';

const quiet = { info() {}, error() {} };
let etcd: PrivateEtcd;
before(async () => { etcd = await startEtcd(); });
after(() => etcd.stop());

/** The Ranges etcd has answered OK so far. */
async function rangesServed(): Promise<number> {
  const text = await new Promise<string>((resolve, reject) => {
    http.get(`${etcd.url}/metrics`, (res) => { let b = ''; res.setEncoding('utf8'); res.on('data', (c) => { b += c; }); res.on('end', () => resolve(b)); })
      .on('error', reject);
  });
  const m = /^grpc_server_handled_total\{grpc_code="OK",grpc_method="Range",grpc_service="etcdserverpb.KV",grpc_type="unary"\} (\d+)$/m.exec(text);
  assert.ok(m, 'etcd reports its Ranges');
  return Number(m[1]);
}

/** The ConfigMaps store of a registry on the private etcd (no watch cache: lists read etcd), with `namespace` made. */
async function configMaps(t: { after(fn: () => Promise<void>): void }, namespace: string) {
  const backend = openEtcdBackend({ servers: [etcd.url], compactIntervalMs: 0, logger: quiet });
  t.after(() => backend.close());
  const registry = new Registry(backend, realClock);
  await registry.namespaces.create(undefined, { metadata: { name: namespace } });
  return registry.store('', 'v1', 'configmaps')!;
}

test('etcd: a list page is one Range, and its remainingItemCount is that Range\'s count', async (t) => {
  const cms = await configMaps(t, 'paged');
  for (let i = 0; i < 5; i++) await cms.create('paged', { metadata: { name: `cm-${i}` }, data: { i: String(i) } } satisfies ConfigMap);

  const pages: { names: string[]; remaining?: number; ranges: number }[] = [];
  let cont: string | undefined;
  do {
    const before = await rangesServed();
    const page = await cms.list('paged', { limit: 2, continue: cont });
    const ranges = (await rangesServed()) - before;
    pages.push({ names: (page.items as ConfigMap[]).map((c) => c.metadata!.name!), remaining: page.remainingItemCount, ranges });
    cont = page.continue;
  } while (cont);

  assert.deepEqual(pages, [
    { names: ['cm-0', 'cm-1'], remaining: 3, ranges: 1 },
    { names: ['cm-2', 'cm-3'], remaining: 1, ranges: 1 },
    { names: ['cm-4'], remaining: undefined, ranges: 1 },
  ]);
});

test('etcd: a filtered page has no remainingItemCount (the Range counts keys the selector drops), as upstream\'s', async (t) => {
  const cms = await configMaps(t, 'filtered');
  for (let i = 0; i < 4; i++) await cms.create('filtered', { metadata: { name: `cm-${i}`, labels: { odd: String(i % 2 === 1) } } } satisfies ConfigMap);
  const page = await cms.list('filtered', { limit: 1, labelSelector: 'odd=true' });
  assert.deepEqual((page.items as ConfigMap[]).map((c) => c.metadata!.name), ['cm-1']);
  assert.ok(page.continue);
  assert.equal(page.remainingItemCount, undefined);
});

/**
 * The `kubernetes` Endpoints and EndpointSlice at an API server's start
 * (src/registry/kubernetes-endpoints.ts): as kube-apiserver's lease reconciler,
 * a start that finds them already holding its address and port writes neither
 * (a restart on the same port costs no write and no managed-fields update),
 * and a start on another port writes both, for manager kube-apiserver.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { Registry } from '../../src/registry/registry.js';
import { ensureKubernetesService, ensureSystemNamespaces } from '../../src/registry/bootstrap.js';
import { KubernetesEndpointReconciler } from '../../src/registry/kubernetes-endpoints.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { silentLogger } from '../../src/util/log.js';

test('a start finding the kubernetes endpoints as it would write them writes nothing; another port rewrites both', async () => {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: silentLogger });
  const registry = new Registry(backend, { now: () => new Date() });
  const reconcilers: KubernetesEndpointReconciler[] = [];
  try {
    await ensureSystemNamespaces(registry);
    await ensureKubernetesService(registry);
    const endpoints = registry.store('', 'v1', 'endpoints')!;
    const slices = registry.store('discovery.k8s.io', 'v1', 'endpointslices')!;
    const read = async () => ({
      endpoints: await endpoints.get('default', 'kubernetes') as Endpoints,
      slice: await slices.get('default', 'kubernetes') as EndpointSlice,
    });
    // A start of the server (no interval tick within the test): the previous one's record has not expired.
    const start = async (port: number) => {
      const r = new KubernetesEndpointReconciler(registry, backend, '10.0.0.5', port, silentLogger, Date.now, 3_600_000);
      reconcilers.push(r);
      await r.start();
      return read();
    };

    const first = await start(6443);
    assert.deepEqual(first.endpoints.subsets, [{ addresses: [{ ip: '10.0.0.5' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
    assert.deepEqual(first.slice.ports, [{ name: 'https', port: 6443, protocol: 'TCP' }]);

    const again = await start(6443);
    assert.equal(again.endpoints.metadata!.resourceVersion, first.endpoints.metadata!.resourceVersion, 'Endpoints not written again');
    assert.equal(again.slice.metadata!.resourceVersion, first.slice.metadata!.resourceVersion, 'EndpointSlice not written again');

    const moved = await start(6444);
    assert.notEqual(moved.endpoints.metadata!.resourceVersion, first.endpoints.metadata!.resourceVersion);
    assert.notEqual(moved.slice.metadata!.resourceVersion, first.slice.metadata!.resourceVersion);
    assert.equal(moved.endpoints.subsets![0]!.ports![0]!.port, 6444);
    assert.equal(moved.slice.ports![0]!.port, 6444);
    for (const o of [moved.endpoints, moved.slice]) {
      assert.deepEqual(o.metadata!.managedFields!.map((m) => [m.manager, m.operation]), [['kube-apiserver', 'Update']]);
    }
  } finally {
    await Promise.all(reconcilers.map((r) => r.stop()));
    await backend.close();
  }
});

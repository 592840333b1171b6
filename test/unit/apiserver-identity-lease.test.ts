import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { APIServerIdentityLease, apiServerID, identityLeaseExpired } from '../../src/registry/apiserver-identity-lease.js';
import { Registry } from '../../src/registry/registry.js';
import { ensureSystemNamespaces } from '../../src/registry/bootstrap.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { silentLogger } from '../../src/util/log.js';

test('apiServerID: apiserver- and the lowercase unpadded base32 of sha256(len|hostname, len|"kube-apiserver")[:16]', () => {
  // Cross-checked with Python: base64.b32encode(sha256(pack('>H',n)+b'master-1'+pack('>H',14)+b'kube-apiserver').digest()[:16]).
  assert.equal(apiServerID('master-1'), 'apiserver-wj467rbl25eeviqacfhvg2yvnm');
  assert.equal(apiServerID('control-plane'), 'apiserver-6vzvajxlkf7lcarzgdc4jnyaru');
  assert.match(apiServerID('x'), /^apiserver-[a-z2-7]{26}$/);
});

test('identityLeaseExpired: renewTime plus the duration before now, or either missing', () => {
  const at = Date.parse('2026-12-07T10:00:00Z');
  const lease = (renewTime?: string, leaseDurationSeconds?: number): Lease => ({ metadata: { name: 'l' }, spec: { renewTime, leaseDurationSeconds } });
  assert.equal(identityLeaseExpired(lease('2026-12-07T09:00:00.000000Z', 3600), at), false);
  assert.equal(identityLeaseExpired(lease('2026-12-07T08:59:59.000000Z', 3600), at), true);
  assert.equal(identityLeaseExpired(lease(undefined, 3600), at), true);
  assert.equal(identityLeaseExpired(lease('2026-12-07T09:30:00.000000Z'), at), true);
});

test('the identity Lease: created with its holder and labels, renewed by a second server of the hostname without a new holder; expired ones collected', async () => {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: silentLogger });
  let now = Date.parse('2026-12-07T10:00:00Z');
  const registry = new Registry(backend, { now: () => new Date(now) });
  await ensureSystemNamespaces(registry);
  const leases = registry.store('coordination.k8s.io', 'v1', 'leases')!;
  const first = new APIServerIdentityLease(registry, 'master-1', silentLogger, () => now);
  const second = new APIServerIdentityLease(registry, 'master-1', silentLogger, () => now);
  const other = new APIServerIdentityLease(registry, 'master-2', silentLogger, () => now);
  try {
    await first.startController();
    const created = await leases.get('kube-system', 'apiserver-wj467rbl25eeviqacfhvg2yvnm') as Lease;
    assert.deepEqual(created.metadata?.labels, { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': 'master-1' });
    assert.match(created.spec?.holderIdentity ?? '', /^apiserver-wj467rbl25eeviqacfhvg2yvnm_[0-9a-f-]{36}$/);
    assert.equal(created.spec?.leaseDurationSeconds, 3600);
    assert.equal(created.spec?.renewTime, '2026-12-07T10:00:00.000000Z');
    await other.startController();
    now += 2 * 3600_000;
    await second.startController();
    const renewed = await leases.get('kube-system', 'apiserver-wj467rbl25eeviqacfhvg2yvnm') as Lease;
    assert.equal(renewed.spec?.holderIdentity, created.spec?.holderIdentity);
    assert.equal(renewed.spec?.renewTime, '2026-12-07T12:00:00.000000Z');
    await leases.create('kube-system', { metadata: { name: 'unlabelled' }, spec: {} });
    await second.startGarbageCollector();
    const left = (await leases.list('kube-system')).items.map((l: Lease) => l.metadata?.name).sort();
    assert.deepEqual(left, ['apiserver-wj467rbl25eeviqacfhvg2yvnm', 'unlabelled'], 'master-2\'s lease expired an hour ago and is collected; an unlabelled one is not the collector\'s');
  } finally {
    for (const c of [first, second, other]) c.stop();
    await backend.close();
  }
});

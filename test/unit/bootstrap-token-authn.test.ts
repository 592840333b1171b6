import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Secret } from 'kubernetes-types/core/v1.js';
import { authenticateBootstrapToken, createBootstrapTokenAuthenticator } from '../../src/apiserver/auth/index.js';
import { bootstrapTokenToSecret } from '../../src/api/bootstraptoken/index.js';
import { Registry } from '../../src/registry/registry.js';
import { ensureSystemNamespaces } from '../../src/registry/bootstrap.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { silentLogger } from '../../src/util/log.js';
import { eventually } from '../e2e/harness.js';

const now = new Date('2026-12-01T10:00:00Z');
const tokenText = 'abcdef.0123456789abcdef';
const stored = (over: { usages?: string[]; groups?: string[]; ttlMs?: number } = {}): Secret => bootstrapTokenToSecret({
  token: { id: 'abcdef', secret: '0123456789abcdef' }, usages: over.usages ?? ['signing', 'authentication'],
  groups: over.groups ?? ['system:bootstrappers:kubeadm:default-node-token'], ttlMs: over.ttlMs ?? 3_600_000,
}, now);
const withData = (s: Secret, key: string, value: string): Secret => ({ ...s, data: { ...s.data, [key]: Buffer.from(value).toString('base64') } });

test('bootstrap token authentication: the rules in order', () => {
  const ok = { name: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token'] };
  assert.deepEqual(authenticateBootstrapToken(tokenText, stored(), now), ok);
  const refused: Array<[string, string, Secret | undefined, Date?]> = [
    ['not a bootstrap token', 'static-token', stored()],
    ['no Secret', tokenText, undefined],
    ['being deleted', tokenText, { ...stored(), metadata: { ...stored().metadata, deletionTimestamp: '2026-12-01T09:00:00Z' } }],
    ['wrong type', tokenText, { ...stored(), type: 'Opaque' }],
    ['wrong secret', 'abcdef.0123456789abcdee', stored()],
    ['token-id differs', tokenText, withData(stored(), 'token-id', 'zzzzzz')],
    ['expired', tokenText, stored(), new Date('2026-12-01T11:00:00Z')],
    ['unparseable expiration', tokenText, withData(stored(), 'expiration', 'soon')],
    ['no authentication usage', tokenText, stored({ usages: ['signing'] })],
    ['invalid extra group', tokenText, withData(stored(), 'auth-extra-groups', 'system:masters')],
  ];
  for (const [why, token, secret, at] of refused) assert.equal(authenticateBootstrapToken(token, secret, at ?? now), undefined, why);
  assert.deepEqual(authenticateBootstrapToken(tokenText, stored({ groups: [] }), now), { name: 'system:bootstrap:abcdef', groups: ['system:bootstrappers'] });
  assert.deepEqual(authenticateBootstrapToken(tokenText, stored({ ttlMs: 0 }), new Date('2099-01-01T00:00:00Z')), ok, 'no expiration');
});

test('bootstrap token authentication: the watch-kept cache follows creates, updates and deletes', async () => {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: silentLogger });
  const registry = new Registry(backend, { now: () => now });
  await ensureSystemNamespaces(registry);
  const secrets = registry.store('', 'v1', 'secrets')!;
  const authn = createBootstrapTokenAuthenticator(secrets, { clock: { now: () => now } });
  try {
    await secrets.create('kube-system', bootstrapTokenToSecret({ token: { id: 'aaaaaa', secret: 'aaaaaaaaaaaaaaaa' }, usages: ['authentication'], groups: [] }, now));
    await authn.start();
    assert.equal((await authn.authenticate('aaaaaa.aaaaaaaaaaaaaaaa'))?.name, 'system:bootstrap:aaaaaa', 'present before start');
    assert.equal(await authn.authenticate(tokenText), undefined);
    await secrets.create('kube-system', stored());
    await eventually(async () => (await authn.authenticate(tokenText))?.name === 'system:bootstrap:abcdef', 10_000, 'created token');
    const cur = await secrets.get('kube-system', 'bootstrap-token-abcdef');
    await secrets.update('kube-system', 'bootstrap-token-abcdef', withData(cur, 'usage-bootstrap-authentication', 'false'));
    await eventually(async () => (await authn.authenticate(tokenText)) === undefined, 10_000, 'usage removed');
    await secrets.delete('kube-system', 'bootstrap-token-aaaaaa');
    await eventually(async () => (await authn.authenticate('aaaaaa.aaaaaaaaaaaaaaaa')) === undefined, 10_000, 'deleted token');
    // Secrets of other types never enter the cache.
    await secrets.create('kube-system', { metadata: { name: 'bootstrap-token-bbbbbb' }, type: 'Opaque', stringData: { 'token-id': 'bbbbbb', 'token-secret': 'bbbbbbbbbbbbbbbb', 'usage-bootstrap-authentication': 'true' } });
    await secrets.create('kube-system', bootstrapTokenToSecret({ token: { id: 'cccccc', secret: 'cccccccccccccccc' }, usages: ['authentication'], groups: [] }, now));
    await eventually(async () => !!(await authn.authenticate('cccccc.cccccccccccccccc')), 10_000, 'later token');
    assert.equal(await authn.authenticate('bbbbbb.bbbbbbbbbbbbbbbb'), undefined);
  } finally {
    authn.close();
    await backend.close();
  }
});

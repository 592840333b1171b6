import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { nextExpiryMs, planSignedClusterInfo, signingTokens } from '../../src/controllers/bootstrap/index.js';
import { bootstrapTokenToSecret, computeDetachedSignature } from '../../src/api/bootstraptoken/index.js';
import { formatTokenList, shortHumanDuration, tabwrite } from '../../src/kubeadm/token/index.js';
import { joinWorkerCommand } from '../../src/kubeadm/token/join-command.js';
import { caCertHash, createCA } from '../../src/pki/index.js';

const now = new Date('2026-12-01T10:00:00Z');
const secret = (id: string, usages: string[], ttlMs = 3_600_000) =>
  bootstrapTokenToSecret({ token: { id, secret: `${id}${id}${id.slice(0, 4)}` }, usages, groups: [], ttlMs }, now);
const cm = (data: Record<string, string>): ConfigMap => ({ metadata: { name: 'cluster-info', namespace: 'kube-public', resourceVersion: '7' }, data });

test('bootstrap signer plan: one signature per signing token, stale ones removed, nothing when current', () => {
  const tokens = signingTokens([secret('aaaaaa', ['signing']), secret('bbbbbb', ['authentication']), secret('cccccc', ['signing', 'authentication'])], now);
  assert.deepEqual(tokens.map((t) => t.id), ['aaaaaa', 'cccccc']);
  const plan = planSignedClusterInfo(cm({ kubeconfig: 'K', other: 'kept', 'jws-kubeconfig-zzzzzz': 'stale' }), tokens)!;
  assert.deepEqual(plan.data, {
    kubeconfig: 'K', other: 'kept',
    'jws-kubeconfig-aaaaaa': computeDetachedSignature('K', 'aaaaaa', 'aaaaaaaaaaaaaaaa'),
    'jws-kubeconfig-cccccc': computeDetachedSignature('K', 'cccccc', 'cccccccccccccccc'),
  });
  assert.equal(plan.metadata?.resourceVersion, '7', 'the update is guarded by the cached version');
  assert.equal(planSignedClusterInfo(plan, tokens), undefined, 'already signed');
  assert.deepEqual(planSignedClusterInfo(plan, [])!.data, { kubeconfig: 'K', other: 'kept' }, 'no tokens: signatures removed');
  assert.equal(planSignedClusterInfo(cm({ other: 'x' }), tokens), undefined, 'no kubeconfig: nothing to sign');
  assert.equal(nextExpiryMs([secret('aaaaaa', ['signing'], 60_000), secret('cccccc', ['signing'], 0)], now), 60_000);
  assert.equal(nextExpiryMs([secret('bbbbbb', ['authentication'], 5_000)], now), undefined, 'non-signing tokens do not matter');
});

test('ShortHumanDuration as apimachinery cuts it', () => {
  const cases: Array<[number, string]> = [[-2_000, '<invalid>'], [-1_000, '0s'], [-500, '0s'], [0, '0s'], [59_999, '59s'], [60_000, '1m'],
    [3_599_999, '59m'], [3_600_000, '1h'], [24 * 3_600_000 - 1, '23h'], [24 * 3_600_000, '1d'], [365 * 24 * 3_600_000, '1y']];
  for (const [ms, want] of cases) assert.equal(shortHumanDuration(ms), want, String(ms));
});

test('tabwriter: columns as wide as their widest cell plus 3, at least 10; the last cell unpadded', () => {
  assert.equal(tabwrite([['A', 'BB', 'tail'], ['CCCCCCCCCCCC', 'D', 'x']]), 'A              BB        tail\nCCCCCCCCCCCC   D         x\n');
});

test('token list: header with the first token, each later token aligned on its own, as kubeadm prints', () => {
  const out = formatTokenList([
    { token: { id: 'abcdef', secret: '0123456789abcdef' }, expires: new Date('2026-12-01T13:00:00Z'), usages: ['authentication', 'signing'], groups: ['system:bootstrappers:kubeadm:default-node-token'], description: 'd' },
    { token: { id: 'ffffff', secret: '0123456789abcdef' }, usages: [], groups: [] },
    { token: { id: 'eeeeee', secret: '0123456789abcdef' }, expires: new Date('2026-12-01T09:00:00Z'), usages: ['signing'], groups: [] },
  ], now);
  assert.equal(out, [
    `TOKEN                     TTL         EXPIRES                USAGES                   DESCRIPTION${' '.repeat(48)}EXTRA GROUPS`,
    `abcdef.0123456789abcdef   3h          2026-12-01T13:00:00Z   authentication,signing   d${' '.repeat(58)}system:bootstrappers:kubeadm:default-node-token`,
    `ffffff.0123456789abcdef   <forever>   <never>   <none>                   <none>${' '.repeat(53)}<none>`,
    `eeeeee.0123456789abcdef   <invalid>   2026-12-01T09:00:00Z   signing                  <none>${' '.repeat(53)}<none>`,
    '',
  ].join('\n'));
});

test('join command: host:port from the server, one pin per CA certificate, trailing space', async () => {
  const a = await createCA({ commonName: 'a', days: 1 });
  const b = await createCA({ commonName: 'b', days: 1 });
  assert.equal(joinWorkerCommand({ server: 'https://10.0.0.1:6443', caPem: a.certPem + b.certPem, token: 'abcdef.0123456789abcdef' }),
    `k8ts join 10.0.0.1:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash ${caCertHash(a.certPem)} --discovery-token-ca-cert-hash ${caCertHash(b.certPem)} `);
});

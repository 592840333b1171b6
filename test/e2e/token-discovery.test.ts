/**
 * Join-side token discovery against a real cluster's cluster-info, signed by
 * its bootstrap signer. Until anonymous reads are authorized on the API
 * server, the test serves that ConfigMap anonymously itself: a front on
 * another port, with the API server's own certificate, relays the real
 * cluster-info (read with admin credentials), or a tampered copy of it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { startCluster, eventually, type Cluster } from './harness.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { createBootstrapConfigMapIfNotExists, createNewTokens } from '../../src/kubeadm/bootstraptoken/index.js';
import { retrieveValidatedConfigInfo, validateDiscoveryBootstrapToken } from '../../src/kubeadm/discovery/index.js';
import { caCertHash, createCA, issueCertificate } from '../../src/pki/index.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';

let cluster: Cluster;
let clients: Clientset;
let caPem: string;
let server: string;
const token = 'abcdef.0123456789abcdef';

/** The anonymous front: GET cluster-info answers what `edit` makes of the real one. */
async function front(opts: { edit?: (cm: ConfigMap) => ConfigMap; cert?: { certPem: string; keyPem: string } } = {}): Promise<{ endpoint: string; close(): void }> {
  const cert = opts.cert ?? {
    certPem: readFileSync(join(cluster.dataDir, 'pki', 'apiserver.crt'), 'utf8'), keyPem: readFileSync(join(cluster.dataDir, 'pki', 'apiserver.key'), 'utf8'),
  };
  const srv = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    if (req.url?.split('?')[0] !== '/api/v1/namespaces/kube-public/configmaps/cluster-info') { res.writeHead(404).end(); return; }
    clients.resource('configmaps').get('kube-public', 'cluster-info').then((cm) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(opts.edit ? opts.edit(cm) : cm));
    }, (e) => res.writeHead(500).end(String(e)));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { endpoint: `127.0.0.1:${(srv.address() as AddressInfo).port}`, close: () => { srv.closeAllConnections(); srv.close(); } };
}

const discover = (endpoint: string, over: { token?: string; caCertHashes?: string[]; unsafeSkipCAVerification?: boolean; timeoutMs?: number } = {}) =>
  retrieveValidatedConfigInfo({ apiServerEndpoint: endpoint, token, caCertHashes: [caCertHash(caPem)], intervalMs: 200, timeoutMs: 3_000, ...over });

before(async () => {
  cluster = await startCluster({ controllers: 'bootstrapsigner' });
  const cfg = loadKubeconfig(cluster.kubeconfig);
  clients = new Clientset(cfg);
  caPem = cfg.caPem!;
  server = cfg.server;
  await createBootstrapConfigMapIfNotExists(clients, { server, caCertPem: caPem });
  await createNewTokens(clients, [{ token: { id: 'abcdef', secret: '0123456789abcdef' }, ttlMs: 3_600_000, usages: ['signing', 'authentication'], groups: [] }], new Date());
  await eventually(async () => (await clients.resource('configmaps').get('kube-public', 'cluster-info')).data['jws-kubeconfig-abcdef'], 15_000, 'signed cluster-info');
});
after(async () => {
  clients?.close();
  await cluster?.cleanup();
});

test('discovery trusts a signed cluster-info whose CA is pinned, then re-reads it over verified TLS', async () => {
  const f = await front();
  try {
    const found = await discover(f.endpoint);
    assert.equal(found.server, server);
    assert.equal(found.caPem, caPem);
    assert.equal(found.name, '');
    assert.equal(found.kubeconfig, (await clients.resource('configmaps').get('kube-public', 'cluster-info')).data.kubeconfig);
    const unpinned = await discover(f.endpoint, { caCertHashes: [], unsafeSkipCAVerification: true });
    assert.equal(unpinned.server, server);
  } finally { f.close(); }
});

test('a wrong CA hash fails with kubeadm\'s message naming the CA\'s actual hash', async () => {
  const f = await front();
  try {
    await assert.rejects(discover(f.endpoint, { caCertHashes: [`sha256:${'0'.repeat(64)}`] }),
      { message: `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${caCertHash(caPem)}" are pinned` });
    await assert.rejects(discover(f.endpoint, { caCertHashes: ['sha256:abc'] }),
      { message: 'invalid discovery token CA certificate hash: invalid hash "sha256:abc", expected a 32 byte SHA-256 hash, found 1 bytes' });
    await assert.rejects(discover(f.endpoint, { caCertHashes: [`md5:${'0'.repeat(32)}`] }),
      { message: 'invalid discovery token CA certificate hash: unknown hash format "md5". Known format(s) are: sha256' });
  } finally { f.close(); }
});

test('a tampered signature or kubeconfig, or a token with another secret, fails the JWS check', async () => {
  const bad = "failed to verify JWS signature of received cluster info object, can't trust this API Server";
  const flipLast = (s: string) => `${s.slice(0, -1)}${s.endsWith('A') ? 'B' : 'A'}`;
  const sig = await front({ edit: (cm) => ({ ...cm, data: { ...cm.data, 'jws-kubeconfig-abcdef': flipLast(cm.data!['jws-kubeconfig-abcdef']!) } }) });
  const cfg = await front({ edit: (cm) => ({ ...cm, data: { ...cm.data, kubeconfig: cm.data!.kubeconfig!.replace(/server: .*/, 'server: https://203.0.113.7:6443') } }) });
  const real = await front();
  try {
    await assert.rejects(discover(sig.endpoint), { message: bad });
    await assert.rejects(discover(cfg.endpoint), { message: bad });
    await assert.rejects(discover(real.endpoint, { token: 'abcdef.0123456789abcdee' }), { message: bad });
  } finally { sig.close(); cfg.close(); real.close(); }
});

test('a token id with no signature waits, then fails with kubeadm\'s message', async () => {
  const f = await front();
  try {
    await assert.rejects(discover(f.endpoint, { token: 'qqqqqq.0123456789abcdef', timeoutMs: 1_000 }),
      { message: 'could not find a JWS signature in the cluster-info ConfigMap for token ID "qqqqqq"' });
  } finally { f.close(); }
});

test('an unreachable server fails with client-go\'s words; a server with another CA fails the verified re-read', async () => {
  const f = await front();
  const port = Number(f.endpoint.split(':')[1]);
  f.close();
  await assert.rejects(discover(`127.0.0.1:${port}`, { timeoutMs: 600 }), {
    message: `failed to request the cluster-info ConfigMap: Get "https://127.0.0.1:${port}/api/v1/namespaces/kube-public/configmaps/cluster-info?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
  });
  // An impostor relays the genuine, signed cluster-info but cannot prove it holds the pinned CA's certificate.
  const ca = await createCA({ commonName: 'impostor', days: 1 });
  const impostor = await front({ cert: await issueCertificate({ ca, commonName: 'kube-apiserver', ipAddresses: ['127.0.0.1'], usages: ['server'], days: 1 }) });
  try {
    await assert.rejects(discover(impostor.endpoint, { timeoutMs: 600 }), (e: Error) => {
      assert.equal(e.message, `failed to request the cluster-info ConfigMap: Get "https://${impostor.endpoint}/api/v1/namespaces/kube-public/configmaps/cluster-info?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`);
      return true;
    });
  } finally { impostor.close(); }
});

test('join\'s checks before discovery: no CA hash without the unsafe flag, a malformed token', () => {
  assert.deepEqual(validateDiscoveryBootstrapToken({ apiServerEndpoint: '10.0.0.1:6443', token, caCertHashes: [] }).map(fieldErrorMessage), [
    'discovery.bootstrapToken: Invalid value: "": using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue',
  ]);
  assert.deepEqual(validateDiscoveryBootstrapToken({ apiServerEndpoint: '10.0.0.1:6443', token: 'x', caCertHashes: [], unsafeSkipCAVerification: true }).map(fieldErrorMessage),
    ['discovery.bootstrapToken.token: Invalid value: "x": the bootstrap token is invalid']);
});

// This cluster runs no token cleaner, so an expired token's Secret stays: the API server must refuse the
// token by its expiration alone, and the signer must drop its signature on time by itself.
test('without the cleaner: an expired token is refused (401) though its Secret remains, and its signature goes', async () => {
  const id = 'eeeeee';
  await createNewTokens(clients, [{ token: { id, secret: 'eeeeeeeeeeeeeeee' }, ttlMs: 3_000, usages: ['signing', 'authentication'], groups: [] }], new Date());
  const cm = () => clients.resource('configmaps').get('kube-public', 'cluster-info');
  const tokenClient = new Clientset({ server, caPem, token: `${id}.eeeeeeeeeeeeeeee` });
  try {
    const status = () => tokenClient.resource('namespaces').get(undefined, 'default').then(() => 200, (e) => e.code as number);
    // Refused once expired, while the Secret is still there (acceptance of a live token: bootstrap-tokens.test.ts).
    await eventually(async () => (await status()) === 401, 15_000, 'expired token refused');
    assert.equal((await clients.resource('secrets').get('kube-system', `bootstrap-token-${id}`)).metadata.name, `bootstrap-token-${id}`);
    await eventually(async () => !(`jws-kubeconfig-${id}` in (await cm()).data), 15_000, 'signature of the expired token removed');
  } finally { tokenClient.close(); }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createPrivateKey, createPublicKey, webcrypto, X509Certificate } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import {
  buildClusterInfoKubeconfig, buildKubeconfig, caCertHash, canonicalIP, certificateInfo, createCA, createCertificateRequest,
  ensureClusterPKI, generateKeyPair, isIssuedBy, issueCertificate, loadX509, parseSubjectAltName, publicKeyPemOf,
  signCertificateRequest, writeFileAtomic, writeKubeconfig,
} from '../../src/pki/index.js';

const run = promisify(execFile);
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'k8ts-pki-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** `openssl <args>` with files written for the PEMs given. */
async function openssl(dir: string, files: Record<string, string>, args: string[]): Promise<string> {
  for (const [name, pem] of Object.entries(files)) await writeFile(join(dir, name), pem);
  const { stdout } = await run('openssl', args, { cwd: dir });
  return stdout;
}

const ca = createCA({ commonName: 'kubernetes', days: 3650 });

test('createCA: a self-signed CA certificate with CA:TRUE, keyCertSign and cRLSign', async (t) => {
  const { certPem, keyPem } = await ca;
  const cert = new X509Certificate(certPem);
  assert.equal(cert.ca, true);
  assert.ok(cert.checkIssued(cert) && cert.verify(cert.publicKey));
  assert.ok(cert.checkPrivateKey(createPrivateKey(keyPem)));
  assert.equal(certificateInfo(certPem).commonName, 'kubernetes');
  const text = await openssl(await tempDir(t), { 'ca.crt': certPem }, ['x509', '-in', 'ca.crt', '-noout', '-text']);
  assert.match(text, /Basic Constraints: critical\s+CA:TRUE/);
  assert.match(text, /Key Usage: critical\s+Digital Signature, Certificate Sign, CRL Sign/);
  assert.match(text, /Subject Key Identifier/);
});

test('issueCertificate: serving certificate verifies against the CA and carries its SANs', async (t) => {
  const authority = await ca;
  const { certPem, keyPem } = await issueCertificate({
    ca: authority, commonName: 'kube-apiserver', dnsNames: ['localhost', 'kubernetes.default.svc'],
    ipAddresses: ['127.0.0.1', '::1', '10.96.0.1'], usages: ['server'], days: 365,
  });
  const cert = new X509Certificate(certPem);
  const caCert = new X509Certificate(authority.certPem);
  assert.ok(cert.checkIssued(caCert), 'issued by the CA');
  assert.ok(cert.verify(caCert.publicKey), 'signed by the CA');
  assert.ok(isIssuedBy(certPem, authority.certPem));
  assert.ok(cert.checkPrivateKey(createPrivateKey(keyPem)));
  assert.equal(cert.ca, false);
  assert.deepEqual(cert.keyUsage, [SERVER_AUTH]);
  assert.equal(cert.checkHost('kubernetes.default.svc'), 'kubernetes.default.svc');
  assert.equal(cert.checkIP('::1'), '::1');
  const info = certificateInfo(certPem);
  assert.deepEqual(info.dnsNames, ['localhost', 'kubernetes.default.svc']);
  assert.deepEqual(info.ipAddresses, ['127.0.0.1', '::1', '10.96.0.1']);
  assert.equal(info.issuerCommonName, 'kubernetes');
  assert.ok(info.notBefore.getTime() < Date.now() - 60_000, 'backdated for clock skew');
  const dir = await tempDir(t);
  const verify = await openssl(dir, { 'ca.crt': authority.certPem, 's.crt': certPem }, ['verify', '-CAfile', 'ca.crt', '-purpose', 'sslserver', 's.crt']);
  assert.match(verify, /s\.crt: OK/);
  const text = await openssl(dir, {}, ['x509', '-in', 's.crt', '-noout', '-text']);
  assert.match(text, /Key Usage: critical\s+Digital Signature, Key Encipherment/);
  assert.match(text, /Basic Constraints: critical\s+CA:FALSE/);
  assert.match(text, /Authority Key Identifier/);
});

test('issueCertificate: client certificate with CN and several O; expiry capped at the CA', async (t) => {
  const shortCA = await createCA({ commonName: 'short', days: 2 });
  const { certPem } = await issueCertificate({
    ca: shortCA, commonName: 'kubernetes-admin', organizations: ['system:masters', 'team:ops'], usages: ['client'], days: 365,
  });
  const info = certificateInfo(certPem);
  assert.equal(info.commonName, 'kubernetes-admin');
  assert.deepEqual(info.organizations, ['system:masters', 'team:ops']);
  assert.ok(info.notAfter.getTime() <= Date.parse(new X509Certificate(shortCA.certPem).validTo));
  assert.deepEqual(new X509Certificate(certPem).keyUsage, [CLIENT_AUTH]);
  const out = await openssl(await tempDir(t), { 'ca.crt': shortCA.certPem, 'c.crt': certPem }, ['verify', '-CAfile', 'ca.crt', '-purpose', 'sslclient', 'c.crt']);
  assert.match(out, /c\.crt: OK/);
});

test('issueCertificate: certifies a given public key and returns no private key', async () => {
  const pair = generateKeyPair();
  const issued = await issueCertificate({ ca: await ca, commonName: 'x', usages: ['client', 'server'], days: 1, publicKeyPem: pair.publicKeyPem });
  assert.equal('keyPem' in issued, false);
  const cert = new X509Certificate(issued.certPem);
  assert.ok(cert.checkPrivateKey(createPrivateKey(pair.keyPem)));
  assert.deepEqual(cert.keyUsage, [CLIENT_AUTH, SERVER_AUTH]);
  assert.equal(publicKeyPemOf(pair.keyPem), pair.publicKeyPem);
});

test('signCertificateRequest: a PKCS#10 request from Pkcs10CertificateRequestGenerator round-trips', async () => {
  const x509 = await loadX509();
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: 'O=system:nodes, CN=system:node:worker-1',
    keys: keys as unknown as CryptoKeyPair,
    signingAlgorithm: alg,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'worker-1' }, { type: 'ip', value: '10.0.0.7' }])],
  });
  const authority = await ca;
  const result = await signCertificateRequest({ ca: authority, csrPem: csr.toString('pem'), usages: ['client'], days: 365 });
  assert.ok(result.ok, result.ok ? '' : result.message);
  assert.deepEqual(result.subject, { commonName: 'system:node:worker-1', organizations: ['system:nodes'] });
  assert.deepEqual(result.dnsNames, ['worker-1']);
  assert.deepEqual(result.ipAddresses, ['10.0.0.7']);
  const cert = new X509Certificate(result.certPem);
  assert.ok(cert.checkIssued(new X509Certificate(authority.certPem)) && cert.verify(new X509Certificate(authority.certPem).publicKey));
  const spki = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey));
  assert.deepEqual(cert.publicKey.export({ type: 'spki', format: 'der' }), spki, 'certifies the requested key');
  assert.deepEqual(certificateInfo(result.certPem).organizations, ['system:nodes']);
});

test('signCertificateRequest: a tampered or unparsable request is an outcome, not a throw', async () => {
  const authority = await ca;
  const { keyPem } = generateKeyPair();
  const csrPem = await createCertificateRequest({ keyPem, commonName: 'system:node:a', organizations: ['system:nodes'] });
  const der = Buffer.from(csrPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  der[der.indexOf(Buffer.from('system:node:a')) + 12] = 'b'.charCodeAt(0); // CN a -> b, signature now wrong
  const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
  const bad = await signCertificateRequest({ ca: authority, csrPem: tampered, usages: ['client'], days: 1 });
  assert.deepEqual(bad, { ok: false, message: 'invalid csr: signature does not verify' });
  const garbage = await signCertificateRequest({ ca: authority, csrPem: 'not a csr', usages: ['client'], days: 1 });
  assert.equal(garbage.ok, false);
  const good = await signCertificateRequest({ ca: authority, csrPem, usages: ['client'], days: 1 });
  assert.ok(good.ok);
  assert.equal(good.subject.commonName, 'system:node:a');
});

test('caCertHash matches openssl x509 -pubkey | openssl pkey -pubin -outform der | sha256sum', async (t) => {
  const dir = await tempDir(t);
  // Our ECDSA CA, and an RSA CA as kubeadm makes by default.
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'rsa.key', '-out', 'rsa.crt', '-subj', '/CN=kubernetes', '-days', '1'], { cwd: dir });
  const cases = { 'ec.crt': (await ca).certPem, 'rsa.crt': await readFile(join(dir, 'rsa.crt'), 'utf8') };
  for (const [name, pem] of Object.entries(cases)) {
    await writeFile(join(dir, name), pem);
    const { stdout } = await run('sh', ['-c', `openssl x509 -in ${name} -pubkey -noout | openssl pkey -pubin -outform der | sha256sum`], { cwd: dir });
    assert.equal(caCertHash(pem), `sha256:${stdout.split(' ')[0]}`, name);
  }
});

test('certificateInfo helpers: SAN text as node prints it, canonical IPs', () => {
  assert.deepEqual(parseSubjectAltName('DNS:localhost, IP Address:0:0:0:0:0:0:0:1, IP Address:FD00:0:0:0:0:0:1:2, DNS:"a\\u002cb"'), {
    dnsNames: ['localhost', 'a,b'], ipAddresses: ['::1', 'fd00::1:2'],
  });
  assert.deepEqual(parseSubjectAltName(undefined), { dnsNames: [], ipAddresses: [] });
  for (const [raw, want] of [['127.0.0.1', '127.0.0.1'], ['[::1]', '::1'], ['0:0::1', '::1'], ['FD00::0:1', 'fd00::1']]) {
    assert.equal(canonicalIP(raw!), want);
  }
  assert.throws(() => canonicalIP('kubernetes'));
});

/** Cold or warm ensureClusterPKI in a fresh node process, timed there: what a first server start pays. */
async function timeInFreshProcess(dataDir: string): Promise<{ ms: number; issued: string[] }> {
  const pkiIndex = fileURLToPath(new URL('../../src/pki/index.js', import.meta.url));
  const script = `const m = await import(${JSON.stringify(pkiIndex)}); const t = performance.now();
    const p = await m.ensureClusterPKI(${JSON.stringify(dataDir)}, { hosts: ['10.96.0.1'] });
    console.log(JSON.stringify({ ms: performance.now() - t, issued: p.issued }));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as { ms: number; issued: string[] };
}

// Timings are reported, not asserted: speed is the benchmarks' business (bench/apiserver.ts
// measures the first-ever start), and a timed test fails on a loaded machine.
test('ensureClusterPKI: cold start creates kubeadm\'s files; warm start loads them', async (t) => {
  const dir = await tempDir(t);
  const cold = await timeInFreshProcess(dir);
  const warm = await timeInFreshProcess(dir);
  t.diagnostic(`ensureClusterPKI cold ${cold.ms.toFixed(1)} ms, warm ${warm.ms.toFixed(1)} ms (fresh processes, module load excluded)`);
  assert.deepEqual([...cold.issued].sort(), ['admin', 'apiserver', 'apiserver-kubelet-client', 'ca', 'controller-manager', 'sa', 'scheduler']);
  assert.deepEqual(warm.issued, []);
  const files = (await readdir(join(dir, 'pki'))).sort();
  assert.deepEqual(files, ['admin.crt', 'admin.key', 'apiserver-kubelet-client.crt', 'apiserver-kubelet-client.key', 'apiserver.crt', 'apiserver.key', 'ca.crt', 'ca.key',
    'controller-manager.crt', 'controller-manager.key', 'sa.key', 'sa.pub', 'scheduler.crt', 'scheduler.key']);
  for (const f of files) {
    const mode = (await stat(join(dir, 'pki', f))).mode & 0o777;
    assert.equal(mode, f.endsWith('.key') ? 0o600 : 0o644, f);
  }
});

test('ensureClusterPKI: idempotent, SANs, admin identity, and reissue only of what is stale', async (t) => {
  const dir = await tempDir(t);
  const first = await ensureClusterPKI(dir, { hosts: ['10.96.0.1', 'api.example.com'] });
  const serving = certificateInfo(first.apiserverCertPem);
  for (const name of ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local', 'api.example.com', hostname().toLowerCase()]) {
    assert.ok(serving.dnsNames.includes(name), name);
  }
  assert.deepEqual(serving.ipAddresses.sort(), ['10.96.0.1', '127.0.0.1', '::1']);
  const admin = certificateInfo(first.adminCertPem);
  assert.equal(admin.commonName, 'kubernetes-admin');
  assert.deepEqual(admin.organizations, ['system:masters']);
  assert.ok(isIssuedBy(first.adminCertPem, first.caCertPem) && isIssuedBy(first.apiserverCertPem, first.caCertPem));
  // kubeadm's apiserver-kubelet-client.crt: the API server's identity towards kubelets.
  const kubeletClient = certificateInfo(first.kubeletClientCertPem);
  assert.equal(kubeletClient.commonName, 'kube-apiserver-kubelet-client');
  assert.deepEqual(kubeletClient.organizations, ['system:masters']);
  assert.ok(isIssuedBy(first.kubeletClientCertPem, first.caCertPem));
  assert.equal(createPublicKey(first.serviceAccountKeyPem).export({ type: 'spki', format: 'pem' }), first.serviceAccountPublicKeyPem);

  const again = await ensureClusterPKI(dir, { hosts: ['api.example.com', '10.96.0.1'] });
  assert.deepEqual(again.issued, []);
  assert.deepEqual({ ...again, issued: [] }, { ...first, issued: [] });

  const moreHosts = await ensureClusterPKI(dir, { hosts: ['10.96.0.1', 'api.example.com', '192.168.1.5'] });
  assert.deepEqual(moreHosts.issued, ['apiserver']);
  assert.equal(moreHosts.caCertPem, first.caCertPem);
  assert.equal(moreHosts.adminCertPem, first.adminCertPem);
  assert.ok(certificateInfo(moreHosts.apiserverCertPem).ipAddresses.includes('192.168.1.5'));

  await unlink(first.paths.adminCert);
  const adminBack = await ensureClusterPKI(dir, { hosts: ['192.168.1.5'] });
  assert.deepEqual(adminBack.issued, ['admin']);

  const nearExpiry = await issueCertificate({ ca: { certPem: first.caCertPem, keyPem: first.caKeyPem }, commonName: 'kube-apiserver', dnsNames: ['localhost'], usages: ['server'], days: 1 });
  await writeFile(first.paths.apiserverCert, nearExpiry.certPem);
  await writeFile(first.paths.apiserverKey, nearExpiry.keyPem);
  assert.deepEqual((await ensureClusterPKI(dir, { hosts: ['192.168.1.5'] })).issued, ['apiserver']);

  await writeFile(first.paths.serviceAccountPublicKey, 'stale');
  const saFixed = await ensureClusterPKI(dir, { hosts: ['192.168.1.5'] });
  assert.equal(saFixed.serviceAccountKeyPem, first.serviceAccountKeyPem);
  assert.equal(await readFile(first.paths.serviceAccountPublicKey, 'utf8'), first.serviceAccountPublicKeyPem);

  await unlink(first.paths.caKey);
  await assert.rejects(ensureClusterPKI(dir, { hosts: [] }), /ca\.key does not; k8ts needs the CA key/);
});

test('ensureClusterPKI: a new CA replaces every leaf signed by the old one', async (t) => {
  const dir = await tempDir(t);
  const first = await ensureClusterPKI(dir, { hosts: [] });
  await unlink(first.paths.caCert);
  const second = await ensureClusterPKI(dir, { hosts: [] });
  assert.deepEqual([...second.issued].sort(), ['admin', 'apiserver', 'apiserver-kubelet-client', 'ca', 'controller-manager', 'scheduler']);
  assert.ok(isIssuedBy(second.adminCertPem, second.caCertPem));
  assert.equal(second.serviceAccountKeyPem, first.serviceAccountKeyPem, 'the service-account key is kept');
});

test('writeFileAtomic: replaces content, sets the mode, leaves no temp files', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'f');
  await writeFile(path, 'old', { mode: 0o644 });
  await writeFileAtomic(path, 'new', 0o600);
  assert.equal(await readFile(path, 'utf8'), 'new');
  assert.equal((await stat(path)).mode & 0o777, 0o600);
  assert.deepEqual(await readdir(dir), ['f']);
});

test('buildKubeconfig: kubeadm names, parses as YAML and is accepted by kubectl', async (t) => {
  const dir = await tempDir(t);
  const pki = await ensureClusterPKI(dir, { hosts: [] });
  const yaml = buildKubeconfig({
    server: 'https://127.0.0.1:6443', caCertPem: pki.caCertPem, userName: 'kubernetes-admin',
    clientCertPem: pki.adminCertPem, clientKeyPem: pki.adminKeyPem,
  });
  const doc = parse(yaml) as Record<string, any>;
  assert.equal(doc.apiVersion, 'v1');
  assert.equal(doc.kind, 'Config');
  assert.equal(doc['current-context'], 'kubernetes-admin@kubernetes');
  assert.deepEqual(doc.contexts, [{ name: 'kubernetes-admin@kubernetes', context: { cluster: 'kubernetes', user: 'kubernetes-admin' } }]);
  assert.equal(doc.clusters[0].name, 'kubernetes');
  assert.equal(doc.clusters[0].cluster.server, 'https://127.0.0.1:6443');
  assert.equal(Buffer.from(doc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), pki.caCertPem);
  assert.equal(Buffer.from(doc.users[0].user['client-key-data'], 'base64').toString(), pki.adminKeyPem);

  const file = join(dir, 'admin.conf');
  await writeKubeconfig(file, yaml);
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  const kubectl = (jsonpath: string) => run('kubectl', ['--kubeconfig', file, 'config', 'view', '--raw', '-o', `jsonpath=${jsonpath}`]).then((r) => r.stdout);
  assert.equal(await kubectl('{.users[0].name}'), 'kubernetes-admin');
  assert.equal(await kubectl('{.contexts[0].context.cluster}'), 'kubernetes');
  assert.equal(await kubectl('{.users[0].user.client-certificate-data}'), Buffer.from(pki.adminCertPem).toString('base64'));

  const tokenFile = join(dir, 'token.conf');
  await writeKubeconfig(tokenFile, buildKubeconfig({ server: 'https://127.0.0.1:6443', caCertPem: pki.caCertPem, userName: 'alice', token: 'abc.def', contextName: 'dev' }));
  const { stdout } = await run('kubectl', ['--kubeconfig', tokenFile, 'config', 'view', '--raw', '-o', 'jsonpath={.current-context} {.users[0].user.token}']);
  assert.equal(stdout, 'dev abc.def');

  assert.throws(() => buildKubeconfig({ server: 's', caCertPem: 'c', userName: 'u', clientCertPem: 'only-cert' }));
});

test('buildClusterInfoKubeconfig: cluster only, as kube-public/cluster-info holds it', () => {
  const doc = parse(buildClusterInfoKubeconfig({ server: 'https://10.0.0.1:6443', caCertPem: 'PEM' })) as Record<string, any>;
  assert.deepEqual(doc.clusters, [{ cluster: { 'certificate-authority-data': Buffer.from('PEM').toString('base64'), server: 'https://10.0.0.1:6443' }, name: '' }]);
  assert.equal(doc.users, null);
  assert.equal(doc['current-context'], '');
});

test('buildKubeconfig: values YAML could misread survive yaml and kubectl', async (t) => {
  const awkward = ['yes', 'No', 'on', 'null', '~', '', '123', '1e3', '0x1F', '.inf', '-dash', 'a: b', 'x #y', 'trailing:', 'quote"s', 'back\\slash', 'multi\nline', 'ünïcode', '@at', '*star', '&amp', '!bang'];
  for (const s of awkward) {
    const doc = parse(buildKubeconfig({ server: s, caCertPem: 'c', userName: s || 'u', clusterName: s, token: s, contextName: s })) as Record<string, any>;
    assert.deepEqual([doc.clusters[0].cluster.server, doc.clusters[0].name, doc.users[0].user.token, doc['current-context']], [s, s, s, s], JSON.stringify(s));
  }
  const dir = await tempDir(t);
  const file = join(dir, 'kc');
  await writeKubeconfig(file, buildKubeconfig({ server: 'https://[::1]:6443', caCertPem: 'c', userName: 'on', token: 'x: y #z' }));
  const { stdout } = await run('kubectl', ['--kubeconfig', file, 'config', 'view', '--raw', '-o', 'jsonpath={.users[0].name}|{.users[0].user.token}|{.clusters[0].cluster.server}']);
  assert.equal(stdout, 'on|x: y #z|https://[::1]:6443');
});

test('issueCertificate: an RSA CA made outside k8ts (kubeadm\'s default) can issue', async (t) => {
  const dir = await tempDir(t);
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=kubernetes', '-days', '10'], { cwd: dir });
  const rsaCA = { certPem: await readFile(join(dir, 'ca.crt'), 'utf8'), keyPem: await readFile(join(dir, 'ca.key'), 'utf8') };
  const { certPem } = await issueCertificate({ ca: rsaCA, commonName: 'kube-apiserver', dnsNames: ['localhost'], usages: ['server'], days: 1 });
  assert.ok(isIssuedBy(certPem, rsaCA.certPem));
  const out = await openssl(dir, { 's.crt': certPem }, ['verify', '-CAfile', 'ca.crt', '-purpose', 'sslserver', 's.crt']);
  assert.match(out, /s\.crt: OK/);
});

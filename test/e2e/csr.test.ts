/**
 * CertificateSigningRequests end to end with the real kubectl: a request made
 * with an openssl key is stamped with its requester, approved with `kubectl
 * certificate approve`, signed by csrsigning with the cluster CA, and the
 * certificate then authenticates as its common name. Validation speaks
 * upstream's words; denied requests stay unsigned; a request its signer
 * refuses gets a Failed condition.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startCluster, eventually, type Cluster } from './harness.js';
import { adminCredentials, manifestDir } from './helpers.js';

let cluster: Cluster;
let files: ReturnType<typeof manifestDir>;
before(async () => {
  cluster = await startCluster({ controllers: 'csrsigning,csrapproving' });
  files = manifestDir();
});
after(async () => { files?.close(); await cluster?.cleanup(); });

/** An ECDSA key and a CSR for `subject` made by openssl. */
function opensslRequest(name: string, subject: string): { key: string; csr: string } {
  const keyFile = files.write(`${name}.key`, '');
  const csr = execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyFile, '-subj', subject], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return { key: execFileSync('cat', [keyFile], { encoding: 'utf8' }), csr };
}

function csrManifest(name: string, csr: string, spec: Record<string, unknown> = {}): string {
  return stringify({
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
    spec: { request: Buffer.from(csr).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], ...spec },
  });
}

const getCSR = async (name: string) => JSON.parse((await cluster.kubectl(['get', 'csr', name, '-o', 'json'])).stdout);
const conditionColumn = async (name: string) => (await cluster.kubectl(['get', 'csr', name, '--no-headers'])).stdout.trim().split(/\s+/).at(-1);

/** A kubeconfig that authenticates with this client certificate. */
function kubeconfigFor(user: string, certPem: string, keyPem: string): string {
  const path = join(cluster.dataDir, `${user.replace(/\W/g, '-')}.conf`);
  writeFileSync(path, stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server: cluster.url, 'certificate-authority-data': Buffer.from(adminCredentials(cluster.kubeconfig).ca).toString('base64') } }],
    users: [{ name: 'u', user: { 'client-certificate-data': Buffer.from(certPem).toString('base64'), 'client-key-data': Buffer.from(keyPem).toString('base64') } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
  }));
  return path;
}

describe('CertificateSigningRequest', () => {
  test('create → kubectl certificate approve → Approved,Issued; the certificate authenticates as its CN', async () => {
    const { key, csr } = opensslRequest('jane', '/O=devs/CN=jane');
    await cluster.kubectl(['apply', '-f', '-'], { input: csrManifest('jane', csr) });
    const created = await getCSR('jane');
    assert.equal(created.spec.username, 'kubernetes-admin');
    assert.ok(created.spec.groups.includes('system:masters'), created.spec.groups);
    assert.equal(await conditionColumn('jane'), 'Pending');

    const approve = await cluster.kubectl(['certificate', 'approve', 'jane']);
    assert.match(approve.stdout, /certificatesigningrequest.certificates.k8s.io\/jane approved/);
    assert.equal(await eventually(async () => (await conditionColumn('jane')) === 'Approved,Issued' && 'ok', 30_000, 'Approved,Issued'), 'ok');
    const issued = await getCSR('jane');
    assert.deepEqual(issued.status.conditions.map((c: any) => [c.type, c.status, c.reason]), [['Approved', 'True', 'KubectlApprove']]);
    assert.ok(issued.status.conditions[0].lastUpdateTime);
    const certPem = Buffer.from(issued.status.certificate, 'base64').toString();
    const cert = new X509Certificate(certPem);
    assert.match(cert.subject, /CN=jane/);
    const ca = new X509Certificate(adminCredentials(cluster.kubeconfig).ca);
    assert.equal(cert.issuer, ca.subject);
    assert.ok(cert.verify(ca.publicKey));

    // The new certificate authenticates as jane: once RBAC lets jane create CSRs, a CSR it creates is stamped with that user.
    await cluster.kubectl(['create', 'clusterrole', 'csr-creator', '--verb=create,get', '--resource=certificatesigningrequests.certificates.k8s.io']);
    await cluster.kubectl(['create', 'clusterrolebinding', 'jane-csr', '--clusterrole=csr-creator', '--user=jane']);
    const { csr: second } = opensslRequest('jane2', '/CN=jane2');
    const asJane = kubeconfigFor('jane', certPem, key);
    // The binding reaches the authorizer through its watch: retry until it has.
    await eventually(async () => (await cluster.kubectl(['--kubeconfig', asJane, 'create', '-f', '-'], { allowFail: true, input: csrManifest('by-jane', second) })).code === 0, 30_000, 'jane may create a CSR');
    const byJane = await getCSR('by-jane');
    assert.equal(byJane.spec.username, 'jane');
    assert.deepEqual(byJane.spec.groups, ['devs', 'system:authenticated']);
  });

  test('spec.expirationSeconds is honoured', async () => {
    const { csr } = opensslRequest('short', '/CN=short');
    await cluster.kubectl(['create', '-f', '-'], { input: csrManifest('short', csr, { expirationSeconds: 600 }) });
    await cluster.kubectl(['certificate', 'approve', 'short']);
    const certB64 = await eventually(async () => (await getCSR('short')).status?.certificate as string | undefined, 30_000, 'certificate');
    const cert = new X509Certificate(Buffer.from(certB64, 'base64'));
    // PermissiveSigningPolicy: backdated 5 minutes, a short certificate ends TTL after now.
    assert.equal((Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 1000, 900);
  });

  test('validation errors are upstream\'s', async () => {
    const { csr } = opensslRequest('v', '/CN=v');
    const notPem = await cluster.kubectl(['create', '-f', '-'], { allowFail: true, input: csrManifest('bad', 'hello') });
    assert.match(notPem.stderr, /The CertificateSigningRequest "bad" is invalid: spec.request: Invalid value: \[\]byte\{0x68, 0x65, 0x6c, 0x6c, 0x6f\}: PEM block type must be CERTIFICATE REQUEST/);
    // Flip one byte of the signature: the request parses, its signature no longer verifies.
    const der = Buffer.from(csr.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    der[der.length - 3] ^= 0x01;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const badSig = await cluster.kubectl(['create', '-f', '-'], { allowFail: true, input: csrManifest('badsig', tampered) });
    assert.match(badSig.stderr, /spec.request: Invalid value: \[\]byte\{.*\}: x509: ECDSA verification failure/);
    const rest = await cluster.kubectl(['create', '-f', '-'], {
      allowFail: true, input: csrManifest('rest', csr, { signerName: 'signer', usages: ['client auth', 'client auth', 'fly'], expirationSeconds: 60 }),
    });
    assert.match(rest.stderr, /spec.usages\[1\]: Duplicate value: "client auth"/);
    assert.match(rest.stderr, /spec.usages\[2\]: Unsupported value: "fly": supported values: "any", "cert sign"/);
    assert.match(rest.stderr, /spec.signerName: Invalid value: "signer": must be a fully qualified domain and path of the form 'example.com\/signer-name'/);
    assert.match(rest.stderr, /spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds \(10 minutes\)/);
    const noUsages = await cluster.kubectl(['create', '-f', '-'], { allowFail: true, input: csrManifest('nousages', csr, { usages: [] }) });
    assert.match(noUsages.stderr, /spec.usages: Required value/);
  });

  test('the spec is immutable and the certificate is only set through /status', async () => {
    const { csr } = opensslRequest('imm', '/CN=imm');
    await cluster.kubectl(['create', '-f', '-'], { input: csrManifest('imm', csr) });
    // A patch of the object keeps the stored spec (upstream's PrepareForUpdate), it does not fail.
    await cluster.kubectl(['patch', 'csr', 'imm', '--type=merge', '-p', '{"spec":{"usages":["client auth","digital signature"]}}']);
    assert.deepEqual((await getCSR('imm')).spec.usages, ['client auth']);
    const ca = adminCredentials(cluster.kubeconfig).ca;
    const approvalCert = await cluster.kubectl(['patch', 'csr', 'imm', '--subresource=approval', '--type=merge',
      '-p', JSON.stringify({ status: { certificate: Buffer.from(ca).toString('base64') } })], { allowFail: true });
    // The approval subresource keeps the stored certificate: nothing changes.
    assert.equal(approvalCert.code, 0, approvalCert.stderr);
    assert.equal((await getCSR('imm')).status.certificate, undefined);
    const junk = await cluster.kubectl(['patch', 'csr', 'imm', '--subresource=status', '--type=merge',
      '-p', JSON.stringify({ status: { certificate: Buffer.from('junk').toString('base64') } })], { allowFail: true });
    assert.match(junk.stderr, /status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block/);
    const addApproved = await cluster.kubectl(['patch', 'csr', 'imm', '--subresource=status', '--type=merge',
      '-p', '{"status":{"conditions":[{"type":"Approved","status":"True","reason":"Sneaky"}]}}'], { allowFail: true });
    assert.match(addApproved.stderr, /status.conditions: Forbidden: updates may not add a condition of type "Approved"/);
  });

  test('kubectl certificate deny: Denied, never signed', async () => {
    const { csr } = opensslRequest('nope', '/CN=nope');
    await cluster.kubectl(['create', '-f', '-'], { input: csrManifest('nope', csr) });
    const deny = await cluster.kubectl(['certificate', 'deny', 'nope']);
    assert.match(deny.stdout, /certificatesigningrequest.certificates.k8s.io\/nope denied/);
    assert.equal(await conditionColumn('nope'), 'Denied');
    const denied = await getCSR('nope');
    assert.deepEqual(denied.status.conditions.map((c: any) => [c.type, c.reason]), [['Denied', 'KubectlDeny']]);
    const already = await cluster.kubectl(['certificate', 'approve', 'nope'], { allowFail: true });
    assert.match(already.stderr, /certificate signing request "nope" is already Denied/);
    denied.status.conditions.push({ type: 'Approved', status: 'True', reason: 'Both' });
    const both = await cluster.kubectl(['replace', '--raw', '/apis/certificates.k8s.io/v1/certificatesigningrequests/nope/approval', '-f', '-'],
      { allowFail: true, input: JSON.stringify(denied) });
    assert.match(both.stderr, /status.conditions\[1\].type: Invalid value: "Approved": Approved and Denied conditions are mutually exclusive/);
    assert.equal((await getCSR('nope')).status.certificate, undefined);
  });

  test('a kubelet client request that breaks the signer\'s rules gets a Failed condition', async () => {
    const { csr } = opensslRequest('notnode', '/O=devs/CN=system:node:x');
    await cluster.kubectl(['create', '-f', '-'], {
      input: csrManifest('notnode', csr, { signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] }),
    });
    await cluster.kubectl(['certificate', 'approve', 'notnode']);
    assert.equal(await eventually(async () => (await conditionColumn('notnode')) === 'Approved,Failed' && 'ok', 30_000, 'Approved,Failed'), 'ok');
    const failed = (await getCSR('notnode')).status.conditions.find((c: any) => c.type === 'Failed');
    assert.equal(failed.reason, 'SignerValidationFailure');
    assert.equal(failed.message, 'subject organization is not system:nodes');
  });

  // Issue #19: a CSR-issued client certificate must not be a way into system:masters (upstream's
  // CertificateSubjectRestriction admission plugin, on by default).
  test('a kube-apiserver-client request for the system:masters group is refused at create; other groups and signers are not', async () => {
    const { csr } = opensslRequest('mallory', '/O=system:masters/CN=mallory');
    const r = await cluster.kubectl(['apply', '-f', files.write('mallory.yaml', csrManifest('mallory', csr))], { allowFail: true });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /certificatesigningrequests\.certificates\.k8s\.io "mallory" is forbidden: use of kubernetes\.io\/kube-apiserver-client signer with system:masters group is not allowed/);
    assert.equal((await cluster.kubectl(['get', 'csr', 'mallory'], { allowFail: true })).code, 1);
    const { csr: devs } = opensslRequest('mallory2', '/O=system:masters-not/O=devs/CN=mallory2');
    await cluster.kubectl(['apply', '-f', files.write('mallory2.yaml', csrManifest('mallory2', devs))]);
    const { csr: serving } = opensslRequest('mallory3', '/O=system:masters/CN=mallory3');
    await cluster.kubectl(['apply', '-f', files.write('mallory3.yaml', csrManifest('mallory3', serving, { signerName: 'example.com/other', usages: ['client auth'] }))]);
  });
});

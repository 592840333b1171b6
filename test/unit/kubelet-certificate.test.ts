/** The kubelet's client certificate pieces: rotation deadline, CSR name, outcomes, kubeconfig validity, the store. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ClientCertificateStore, certificateOutcome, digestedName, kubeconfigStillValid, rotationDeadline, waitForCertificate, writeNodeKubeconfig,
} from '../../src/kubelet/certificate/index.js';
import { ApiError, type ResourceClient } from '../../src/client/index.js';
import { createCA, generateKeyPair, issueCertificate } from '../../src/pki/index.js';
import { silentLogger } from '../../src/util/log.js';

test('rotationDeadline: between 70 % and 90 % of the lifetime', () => {
  assert.equal(rotationDeadline(1000, 2000, 0), 1700);
  assert.equal(rotationDeadline(1000, 2000, 0.5), 1800);
  assert.ok(rotationDeadline(1000, 2000, 0.999999) < 1900);
});

test('digestedName: node-csr- and a digest of key, subject and usages', () => {
  const { keyPem } = generateKeyPair();
  const a = digestedName(keyPem, 'system:node:n1', ['system:nodes'], ['digital signature', 'client auth']);
  assert.match(a, /^node-csr-[A-Za-z0-9_-]{43}$/);
  assert.equal(digestedName(keyPem, 'system:node:n1', ['system:nodes'], ['digital signature', 'client auth']), a);
  assert.notEqual(digestedName(keyPem, 'system:node:n2', ['system:nodes'], ['digital signature', 'client auth']), a);
  assert.notEqual(digestedName(generateKeyPair().keyPem, 'system:node:n1', ['system:nodes'], ['digital signature', 'client auth']), a);
});

test('certificateOutcome: issued, denied and failed in upstream\'s words, else pending', () => {
  const base = { metadata: { name: 'c' }, spec: { request: '', signerName: 's' } };
  assert.equal(certificateOutcome({ ...base, status: {} }), undefined);
  assert.equal(certificateOutcome({ ...base, status: { conditions: [{ type: 'Approved', status: 'True' }] } }), undefined);
  assert.deepEqual(certificateOutcome({ ...base, status: { certificate: Buffer.from('PEM').toString('base64') } }), { certPem: 'PEM' });
  assert.deepEqual(certificateOutcome({ ...base, status: { conditions: [{ type: 'Denied', status: 'True', reason: 'R', message: 'M' }] } }),
    { error: 'certificate signing request is denied, reason: R, message: M' });
  assert.deepEqual(certificateOutcome({ ...base, status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: 'x' }] } }),
    { error: 'certificate signing request failed, reason: SignerValidationFailure, message: x' });
});

test('the store and the kubeconfig: current pair, symlink switch, expired certificates are not valid', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-kcert-'));
  try {
    const ca = await createCA({ commonName: 'ca', days: 1 });
    const store = new ClientCertificateStore(join(dir, 'pki'));
    assert.equal(store.current(), undefined);
    const live = await issueCertificate({ ca, commonName: 'system:node:n1', organizations: ['system:nodes'], usages: ['client'], days: 1 });
    store.update(live.certPem, live.keyPem, new Date('2026-01-01T00:00:00Z'));
    assert.deepEqual(store.current(), { certPem: live.certPem, keyPem: live.keyPem });
    const kubeconfig = join(dir, 'kubelet.conf');
    writeNodeKubeconfig(kubeconfig, { server: 'https://127.0.0.1:6443', caPem: ca.certPem }, store.currentPath);
    const valid = kubeconfigStillValid(kubeconfig);
    // client-certificate and client-key name the same file, as upstream's kubeconfig does.
    assert.ok(valid.ok && valid.config.certPem!.includes(live.certPem.trim()) && valid.config.server === 'https://127.0.0.1:6443');
    assert.equal(kubeconfigStillValid(kubeconfig, Date.now() + 2 * 86400_000).ok, false);

    const next = await issueCertificate({ ca, commonName: 'system:node:n1', organizations: ['system:nodes'], usages: ['client'], days: 1 });
    store.update(next.certPem, next.keyPem, new Date('2026-01-02T00:00:00Z'));
    assert.equal(realpathSync(store.currentPath), join(realpathSync(dir), 'pki', 'kubelet-client-2026-01-02-00-00-00.pem'));
    assert.equal(readFileSync(store.currentPath, 'utf8'), `${next.certPem.trimEnd()}\n${next.keyPem.trimEnd()}\n`);

    assert.equal(kubeconfigStillValid(join(dir, 'missing.conf')).ok, false);
    writeFileSync(join(dir, 'bad.conf'), 'current-context: nope\n');
    assert.equal(kubeconfigStillValid(join(dir, 'bad.conf')).ok, false);

    const key = store.pendingKey(() => 'KEY1');
    assert.equal(store.pendingKey(() => 'KEY2'), key);
    store.clearPendingKey();
    assert.equal(store.pendingKey(() => 'KEY3'), 'KEY3');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A CSR client whose reads answer from a script; its watches never open (as behind a proxy that holds them). */
function scriptedCSRs(reads: (() => unknown)[]): { csrs: ResourceClient; reads: () => number } {
  let n = 0;
  const csrs = {
    get: async () => reads[Math.min(n++, reads.length - 1)](),
    watch: () => new Promise(() => {}),
  } as unknown as ResourceClient;
  return { csrs, reads: () => n };
}

test('waitForCertificate: a failed read is logged and retried, not fatal; a deleted request ends the wait', async () => {
  const pending = { metadata: { name: 'csr-1', resourceVersion: '5' }, spec: { request: '', signerName: 's' } };
  const issued = { ...pending, status: { certificate: Buffer.from('PEM').toString('base64') } };
  const warnings: string[] = [];
  const logger = { ...silentLogger, warn: (msg: string, kv?: Record<string, unknown>) => { warnings.push(`${msg}: ${kv?.err}`); } };
  const forbidden = () => { throw new ApiError(403, 'Forbidden', 'certificatesigningrequests.certificates.k8s.io "csr-1" is forbidden'); };
  const { csrs } = scriptedCSRs([forbidden, () => pending, () => issued]);
  assert.equal(await waitForCertificate(csrs, 'csr-1', { timeoutMs: 60_000, logger }), 'PEM');
  assert.deepEqual(warnings, ['Unable to read the certificate signing request, retrying: certificatesigningrequests.certificates.k8s.io "csr-1" is forbidden']);
  const gone = scriptedCSRs([() => { throw new ApiError(404, 'NotFound', 'not found'); }]);
  await assert.rejects(waitForCertificate(gone.csrs, 'csr-1', { timeoutMs: 60_000, logger }), /^Error: csr "csr-1" was deleted$/);
});

test('waitForCertificate: stopping the kubelet ends a wait at once', async () => {
  const pending = { metadata: { name: 'csr-2', resourceVersion: '5' }, spec: { request: '', signerName: 's' } };
  const { csrs, reads } = scriptedCSRs([() => pending]);
  const abort = new AbortController();
  const waiting = waitForCertificate(csrs, 'csr-2', { timeoutMs: 3600_000, logger: silentLogger, signal: abort.signal });
  while (reads() === 0) await new Promise((r) => setImmediate(r));
  abort.abort();
  await assert.rejects(waiting, /stopped waiting for certificate signing request "csr-2"/);
});

/**
 * The kubelet's self-signed serving certificate kept in a directory (upstream's
 * --cert-dir): made once, read back on the next start (so a restart of `k8ts up`
 * makes no CA), and made anew when the kept pair no longer serves the node.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { persistedServingCertificate } from '../../src/kubelet/server/index.js';

function withDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-serving-cert-'));
    try { await fn(join(dir, 'kubelet-pki')); } finally { rmSync(dir, { recursive: true, force: true }); }
  };
}

describe('persistedServingCertificate', () => {
  it('writes the pair on first use and returns the same pair on the next', withDir(async (dir) => {
    const first = await persistedServingCertificate('worker1', ['127.0.0.1'], dir);
    assert.equal(readFileSync(join(dir, 'worker1.crt'), 'utf8'), first.certPem);
    assert.equal(readFileSync(join(dir, 'worker1.key'), 'utf8'), first.keyPem);
    assert.equal(statSync(join(dir, 'worker1.key')).mode & 0o777, 0o600);
    const cert = new X509Certificate(first.certPem);
    assert.ok(cert.checkHost('worker1'));
    assert.ok(cert.checkIP('127.0.0.1'));
    assert.deepEqual(await persistedServingCertificate('worker1', ['127.0.0.1'], dir), first);
  }));

  it('makes a new pair when the kept one does not cover a new address', withDir(async (dir) => {
    const first = await persistedServingCertificate('worker1', ['127.0.0.1'], dir);
    const next = await persistedServingCertificate('worker1', ['127.0.0.2'], dir);
    assert.notEqual(next.certPem, first.certPem);
    assert.ok(new X509Certificate(next.certPem).checkIP('127.0.0.2'));
    assert.equal(readFileSync(join(dir, 'worker1.crt'), 'utf8'), next.certPem);
  }));

  it('makes a new pair when the kept key does not match its certificate, or a file is damaged', withDir(async (dir) => {
    const a = await persistedServingCertificate('a', ['127.0.0.1'], dir);
    const b = await persistedServingCertificate('b', ['127.0.0.1'], dir);
    writeFileSync(join(dir, 'a.key'), b.keyPem);
    const remade = await persistedServingCertificate('a', ['127.0.0.1'], dir);
    assert.notEqual(remade.certPem, a.certPem);
    writeFileSync(join(dir, 'a.crt'), 'not a certificate');
    assert.ok(new X509Certificate((await persistedServingCertificate('a', ['127.0.0.1'], dir)).certPem).checkHost('a'));
  }));
});

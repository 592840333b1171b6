/**
 * loadKubeconfig reads file paths as client-go does (ResolveLocalPaths): a
 * relative certificate, key or token file is relative to the kubeconfig's own
 * directory, not to the process's working directory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKubeconfig } from '../../src/client/kubeconfig.js';

test('relative file paths in a kubeconfig are read next to the kubeconfig, whatever the working directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-kubeconfig-'));
  try {
    mkdirSync(join(dir, 'pki'));
    writeFileSync(join(dir, 'pki', 'ca.crt'), 'CA PEM');
    writeFileSync(join(dir, 'pki', 'user.crt'), 'CERT PEM');
    writeFileSync(join(dir, 'user.key'), 'KEY PEM');
    writeFileSync(join(dir, 'token'), 'abc.def\n');
    writeFileSync(join(dir, 'config'), [
      'apiVersion: v1', 'kind: Config', 'current-context: a',
      'clusters:', '- name: c', '  cluster: {server: "https://127.0.0.1:6443/", certificate-authority: pki/ca.crt}',
      'users:', '- name: u', '  user: {client-certificate: pki/user.crt, client-key: ./user.key}',
      '- name: t', '  user: {tokenFile: token}',
      'contexts:', '- name: a', '  context: {cluster: c, user: u}', '- name: b', '  context: {cluster: c, user: t}', '',
    ].join('\n'));
    const elsewhere = process.cwd() === dir ? tmpdir() : process.cwd();
    assert.notEqual(elsewhere, dir);
    const a = loadKubeconfig(join(dir, 'config'));
    assert.deepEqual([a.server, a.caPem, a.certPem, a.keyPem], ['https://127.0.0.1:6443', 'CA PEM', 'CERT PEM', 'KEY PEM']);
    assert.equal(loadKubeconfig(join(dir, 'config'), 'b').token, 'abc.def');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** client-go's InClusterConfig rules (src/client/incluster.ts) and the token file re-read of the REST client. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inClusterConfig } from '../../src/client/index.js';

describe('inClusterConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-incluster-'));
  writeFileSync(join(dir, 'token'), 'abc.def\n');
  writeFileSync(join(dir, 'ca.crt'), 'CA PEM');

  test('the service host and port, the token (trimmed) and its file, the CA', () => {
    assert.deepEqual(inClusterConfig({ KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }, dir),
      { server: 'https://10.96.0.1:443', caPem: 'CA PEM', token: 'abc.def', tokenFile: join(dir, 'token') });
  });
  test('an IPv6 service host is bracketed', () => {
    assert.equal(inClusterConfig({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, dir).server, 'https://[fd00::1]:443');
  });
  test('outside a pod: client-go\'s error', () => {
    assert.throws(() => inClusterConfig({}, dir), { message: 'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined' });
  });
  test.after(() => rmSync(dir, { recursive: true, force: true }));
});

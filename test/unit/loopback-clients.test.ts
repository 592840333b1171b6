/**
 * The control loops' loopback socket (cli/loopback-clients.ts, apiserver/auth/loopback.ts): in a
 * real control plane the controller manager and the scheduler reach the server over it under
 * their certificates' identities (their leader Leases get written, which RBAC allows those users
 * only), while the socket refuses a request without a token or with one it did not issue, and
 * the HTTPS port refuses nothing it did not before.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http, { type IncomingMessage } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../../src/cli/control-plane.js';
import { loopbackIdentities } from '../../src/apiserver/auth/loopback.js';
import { RestClient } from '../../src/client/rest.js';
import { silentLogger } from '../../src/util/log.js';

let cp: ControlPlane;
const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-loopback-'));

before(async () => {
  cp = await startControlPlane({ dataDir, port: 0, bind: '127.0.0.1', controllers: 'all', controlLoopsThread: false, logger: silentLogger });
});

after(async () => {
  await cp?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const requestWith = (headers: Record<string, string>) => ({ headers } as unknown as IncomingMessage);

test('a loopback token stands for its certificate\'s user and groups; nothing else authenticates', () => {
  const ids = loopbackIdentities();
  const certPem = readFileSync(join(dataDir, 'pki', 'scheduler.crt'), 'utf8');
  const token = ids.issue(certPem);
  assert.equal(token.length, 43); // 32 random bytes, base64url
  assert.deepEqual(ids.authenticate(requestWith({ authorization: `Bearer ${token}` })), { name: 'system:kube-scheduler', groups: ['system:authenticated'] });
  assert.equal(ids.authenticate(requestWith({ authorization: `Bearer ${token}x` })), undefined);
  assert.equal(ids.authenticate(requestWith({ authorization: `Basic ${token}` })), undefined);
  assert.equal(ids.authenticate(requestWith({})), undefined);
  assert.notEqual(ids.issue(certPem), token, 'each token is new');
});

/** The abstract Unix socket this process's API server listens on (/proc/net/unix shows it with a leading @). */
function loopbackSocketPath(): string {
  const line = readFileSync('/proc/net/unix', 'utf8').split('\n').find((l) => l.includes(`@k8ts-apiserver-${process.pid}-`));
  assert.ok(line, 'the loopback socket is listening');
  // libuv binds the whole sun_path, so the name shows padded with NULs, as @.
  return `\0${line.trim().split(/\s+/).pop()!.slice(1).replace(/@+$/, '')}`;
}

function get(socketPath: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, path, headers: { Accept: 'application/json', ...headers } }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the control loops lead through the loopback socket; the socket takes no other credential', { skip: process.platform !== 'linux' && 'abstract sockets are Linux only' }, async () => {
  const admin = new RestClient(cp.clientConfig);
  try {
    const deadline = Date.now() + 60_000;
    const holders: Record<string, string | undefined> = {};
    for (const name of ['kube-controller-manager', 'kube-scheduler']) {
      for (;;) {
        const lease = await admin.request('GET', `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}`).catch(() => undefined);
        holders[name] = lease?.spec?.holderIdentity;
        if (holders[name] || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(holders[name], `${name} holds its Lease`);
    }
    const socketPath = loopbackSocketPath();
    assert.equal((await get(socketPath, '/api/v1/namespaces')).status, 401, 'no token');
    assert.equal((await get(socketPath, '/api/v1/namespaces', { Authorization: 'Bearer not-a-loopback-token' })).status, 401, 'a token it did not issue');
    assert.equal((await get(socketPath, '/readyz')).status, 401, 'no anonymous request either');
    // The admin's own HTTPS client is served as before.
    assert.ok((await admin.request('GET', '/api/v1/namespaces/kube-system')).metadata.name === 'kube-system');
  } finally {
    admin.close();
  }
});

/**
 * Issue #12's defects that live in the connection layer and the process, each
 * sent as the exact request that showed it, against a real server process,
 * followed by proof that the server still serves:
 *  1. request-targets Node's URL parser refuses (`//`, `//[`, `//:99999/healthz`) killed the process;
 *  7. keep-alive clients posting 32 KiB bodies were reset (HPE_PAUSED after a response over 16 KiB);
 *  8. a body shorter than its Content-Length held the connection for ever; so did headers that never end;
 *  9. a start on a full disk left a half-alive process;
 * 10. the data directory and the database were world-readable.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startCluster, cliPath, eventually, type Cluster } from './harness.js';
import { startWebhookServer } from './webhook-server.js';
import { adminCredentials, apiRequest } from './helpers.js';
import { rawRequest } from './raw-http.js';

async function assertServing(cluster: Cluster): Promise<void> {
  assert.equal(cluster.proc.exitCode, null, 'the server process exited');
  assert.equal(cluster.proc.signalCode, null, 'the server process was killed');
  const v = await apiRequest(cluster, '/version');
  assert.equal(v.status, 200);
  const ns = await apiRequest(cluster, '/api/v1/namespaces/default');
  assert.equal(ns.status, 200);
}

function assertStatus(body: any, code: number): void {
  assert.equal(body?.kind, 'Status', `not a Status: ${JSON.stringify(body)}`);
  assert.equal(body.apiVersion, 'v1');
  assert.equal(body.code, code);
}

describe('request-targets that are not URLs (item 1)', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster({ extraArgs: ['--controllers', 'none'] }); });
  after(async () => { await cluster?.cleanup(); });

  for (const target of ['//', '//[', '//:99999/healthz', '//[::1]:6443/version', '//api/v1/pods', '//?pretty=1', '//[?pretty=1&watch']) {
    test(`GET ${target} anonymously gets 403 (system:anonymous may not), and the server lives`, async () => {
      const r = await rawRequest(cluster, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, { anonymous: true });
      assert.equal(r.status, 403, r.text);
      assertStatus(r.json, 403);
      await assertServing(cluster);
    });
    test(`GET ${target} as admin gets an answer, and the server lives`, async () => {
      const r = await rawRequest(cluster, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.ok(r.status >= 200 && r.status < 500, r.text);
      if (r.status >= 400) assertStatus(r.json, r.status);
      await assertServing(cluster);
    });
  }

  test('the fuzzer\'s finding: a HEAD watch with events, then a GET on the same keep-alive connection, parses', async () => {
    await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'head-watch' } }) });
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ...adminCredentials(cluster.kubeconfig) });
    const send = (method: string, path: string) => new Promise<string>((resolve) => {
      https.request(new URL(path, cluster.url), { method, agent }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => { text += d.toString(); });
        res.on('end', () => resolve(`${res.statusCode} ${text}`));
      }).on('error', (e) => resolve(`error: ${e.message}`)).end();
    });
    try {
      // The watch's first events (the ConfigMap above) are a body HEAD must not carry.
      assert.equal(await send('HEAD', '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1'), '200 ');
      assert.match(await send('GET', '/api/v1/namespaces/default'), /^200 \{/);
    } finally {
      agent.destroy();
    }
    await assertServing(cluster);
  });

  test('the exact request of the report: curl -sk --path-as-is https://127.0.0.1:PORT//', async () => {
    const port = new URL(cluster.url).port;
    const out = execFileSync('curl', ['-sk', '--path-as-is', '-o', '/dev/null', '-w', '%{http_code}', `https://127.0.0.1:${port}//`], { encoding: 'utf8' });
    assert.equal(out, '403');
    await assertServing(cluster);
  });

  for (const anonymous of [false, true]) {
    test(`a broken %-escape gets 400 before authentication, as Go refuses it (anonymous: ${anonymous})`, async () => {
      for (const target of ['/%', '/api/v1/namespaces/%zz/configmaps']) {
        const r = await rawRequest(cluster, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, { anonymous });
        assert.equal(r.status, 400, r.text);
        assertStatus(r.json, 400);
      }
      await assertServing(cluster);
    });
  }

  test('absolute-form and asterisk-form targets', async () => {
    const abs = await rawRequest(cluster, `GET https://localhost/version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assert.equal(abs.status, 200, abs.text);
    const star = await rawRequest(cluster, 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.equal(star.status, 400, star.text);
    assertStatus(star.json, 400);
    await assertServing(cluster);
  });
});

describe('stalled requests (item 8), with --request-timeout 2s', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster({ extraArgs: ['--controllers', 'none', '--request-timeout', '2s'] }); });
  after(async () => { await cluster?.cleanup(); });

  test('Content-Length: 1000 with 10 bytes sent gets 504 Timeout and the connection is closed', async () => {
    const head = 'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
    const r = await rawRequest(cluster, `${head}{"apiVersi`, { waitMs: 15_000 });
    assert.equal(r.status, 504, r.text);
    assertStatus(r.json, 504);
    assert.equal(r.json.reason, 'Timeout');
    assert.equal(r.json.message, 'Timeout: request did not complete within requested timeout - context deadline exceeded');
    assert.ok(r.closed, 'the server should close the connection');
    assert.ok(r.ms >= 1500 && r.ms < 10_000, `answered after ${r.ms} ms`);
    const list = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps');
    assert.equal(list.json().items.filter((c: any) => c.metadata.name !== 'kube-root-ca.crt').length, 0);
    await assertServing(cluster);
  });

  test('a create whose webhook outlasts the request timeout gets 504, is not written later, and logs no server error', async () => {
    const hooks = await startWebhookServer(() => undefined);
    try {
      await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify({
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'slow' },
        webhooks: [{
          name: 'slow.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Ignore', timeoutSeconds: 4,
          clientConfig: { url: hooks.url('/hang'), caBundle: hooks.caBundle }, objectSelector: { matchLabels: { slow: 'yes' } },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        }],
      }) });
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slow', labels: { slow: 'yes' } } });
      const r = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body });
      assert.equal(r.status, 504, r.body);
      assert.equal(r.json().reason, 'Timeout');
      // The webhook gives up at 4 s and the handler goes on to answer a client that has its 504.
      await eventually(async () => hooks.reviews.get('/hang')?.length === 1 && cluster.serverLog().includes('"handler finished after its request ended"'), 15_000, 'the handler to end');
      const errors = cluster.serverLog().split('\n').filter((l) => l.includes('"request failed"') || l.includes('ERR_HTTP_HEADERS_SENT'));
      assert.deepEqual(errors, [], 'the handler ending after its 504 logged an error');
      // As upstream's cancelled context: the client was told 504, so the write is not made after it.
      const got = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps/slow');
      assert.equal(got.status, 404, `the ConfigMap was written after its 504: ${got.body}`);
    } finally {
      await cluster.kubectl(['delete', 'validatingwebhookconfiguration', 'slow', '--ignore-not-found']);
      await cluster.kubectl(['delete', 'configmap', 'slow', '--ignore-not-found']);
      await hooks.close();
    }
  });

  test('an anonymous stalled body gets 403 and the connection is closed within the request timeout, not held', async () => {
    const head = 'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
    const r = await rawRequest(cluster, `${head}{"apiVersi`, { anonymous: true, waitMs: 15_000 });
    assert.equal(r.status, 403, r.text);
    assert.ok(r.closed, 'the server should close the connection');
    assert.ok(r.ms < 10_000);
  });

  test('headers that never end get 408 and the connection is closed', async () => {
    const r = await rawRequest(cluster, 'GET /version HTTP/1.1\r\nHost: x\r\nX-Slow: ', { waitMs: 15_000 });
    assert.equal(r.status, 408, r.text);
    assert.ok(r.closed);
    assert.ok(r.ms < 10_000, `closed after ${r.ms} ms`);
    await assertServing(cluster);
  });

  test('a connection that never sends a request is closed', async () => {
    const r = await rawRequest(cluster, '', { waitMs: 15_000 });
    assert.ok(r.closed, 'an idle connection with no request must not be held for ever');
    await assertServing(cluster);
  });

  test('a watch is long-running: it outlives the request timeout', async () => {
    const started = Date.now();
    const r = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=4');
    assert.equal(r.status, 200);
    assert.ok(Date.now() - started >= 3500, `the watch ended after ${Date.now() - started} ms`);
  });
});

describe('keep-alive writes of large bodies (item 7)', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster({ extraArgs: ['--controllers', 'none'] }); });
  after(async () => { await cluster?.cleanup(); });

  test('16 keep-alive clients post 400 ConfigMaps of 32 KiB: every one gets an answer', async () => {
    const cfg = parse(readFileSync(cluster.kubeconfig, 'utf8'));
    const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
    const agent = new https.Agent({
      keepAlive: true, maxSockets: 16, ca: b64(cfg.clusters[0].cluster['certificate-authority-data']),
      cert: b64(cfg.users[0].user['client-certificate-data']), key: b64(cfg.users[0].user['client-key-data']),
    });
    const url = new URL(cluster.url);
    const filler = 'x'.repeat(32 * 1024);
    const failures: string[] = [];
    let next = 0;
    let created = 0;
    const post = (i: number) => new Promise<void>((resolve) => {
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}` }, data: { filler } });
      const req = https.request({ agent, host: url.hostname, port: url.port, method: 'POST', path: '/api/v1/namespaces/default/configmaps',
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => { if (res.statusCode === 201) created++; else failures.push(`HTTP ${res.statusCode}`); resolve(); });
      });
      req.on('error', (e: NodeJS.ErrnoException) => { failures.push(e.code ?? e.message); resolve(); });
      req.end(body);
    });
    await Promise.all(Array.from({ length: 16 }, async () => { while (next < 400) await post(next++); }));
    agent.destroy();
    assert.deepEqual(failures, []);
    assert.equal(created, 400);
    await assertServing(cluster);
  });
});

describe('a watcher that stops reading', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster({ extraArgs: ['--controllers', 'none'] }); });
  after(async () => { await cluster?.cleanup(); });

  test('is closed once 32 MiB of its events are unread, and the server lives', async () => {
    const url = new URL(cluster.url);
    const cfg = parse(readFileSync(cluster.kubeconfig, 'utf8'));
    const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
    const { connect } = await import('node:tls');
    const socket = connect({ host: url.hostname, port: Number(url.port), rejectUnauthorized: false,
      cert: b64(cfg.users[0].user['client-certificate-data']), key: b64(cfg.users[0].user['client-key-data']) });
    const closed = new Promise<void>((resolve) => { socket.on('close', () => resolve()); socket.on('error', () => resolve()); });
    await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
    socket.write('GET /api/v1/namespaces/default/configmaps?watch=1 HTTP/1.1\r\nHost: x\r\n\r\n');
    // Read the response head, then never again.
    await new Promise<void>((resolve) => socket.once('data', () => { socket.pause(); resolve(); }));
    const filler = 'y'.repeat(1024 * 1024 - 200);
    let closedEarly = false;
    void closed.then(() => { closedEarly = true; });
    for (let i = 0; i < 100 && !closedEarly; i++) {
      const r = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: JSON.stringify({ metadata: { name: `unread-${i}` }, data: { filler } }) });
      assert.equal(r.status, 201, r.body);
    }
    // Reading again drains what the kernel holds; then the server's close shows, if it closed.
    socket.resume();
    await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('the unread watch was never closed')), 20_000))]);
    socket.destroy();
    await assertServing(cluster);
  });
});

describe('data directory permissions (item 10)', () => {
  let cluster: Cluster | undefined;
  const dataDir = join(mkdtempSync(join(tmpdir(), 'k8ts-e2e-perm-')), 'data');
  after(async () => { await cluster?.cleanup(); rmSync(join(dataDir, '..'), { recursive: true, force: true }); });

  const modes = (dir: string): Array<[string, number]> => readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.parentPath.includes('kubectl-cache') && e.name !== 'kubectl-cache')
    .map((e) => [join(e.parentPath, e.name), statSync(join(e.parentPath, e.name)).mode & 0o777]);

  test('a new data directory is 0700, and state.db, -wal, -shm and every other file 0600', async () => {
    cluster = await startCluster({ dataDir, extraArgs: ['--controllers', 'none'] });
    await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: JSON.stringify({ metadata: { name: 'secretish' } }) });
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    const found = modes(dataDir);
    for (const f of ['state.db', 'state.db-wal', 'state.db-shm', 'admin.conf']) assert.ok(found.some(([p]) => p.endsWith(`/${f}`)), `${f} missing`);
    for (const [path, mode] of found) assert.equal(mode & 0o077, 0, `${path} is ${mode.toString(8)}`);
    await cluster.stop();
  });

  test('an existing loose directory is tightened at start, with a log line', async () => {
    chmodSync(dataDir, 0o755);
    for (const [path] of modes(dataDir)) chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644);
    const proc = spawn(process.execPath, [cliPath, 'server', '--data-dir', dataDir, '--port', '0', '--controllers', 'none'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    await new Promise<void>((resolve, reject) => {
      proc.stderr!.on('data', (d: Buffer) => { log += d.toString(); if (log.includes('API server ready')) resolve(); });
      proc.once('exit', (code) => reject(new Error(`exited ${code}: ${log}`)));
    });
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    assert.match(log, /tightened permissions of the data directory/);
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    for (const [path, mode] of modes(dataDir)) assert.equal(mode & 0o077, 0, `${path} is ${mode.toString(8)}`);
  });
});

describe('starting on a full disk (item 9)', () => {
  const mnt = mkdtempSync(join(tmpdir(), 'k8ts-e2e-full-'));
  before(() => { execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=6m', 'tmpfs', mnt]); });
  after(() => { try { execFileSync('umount', [mnt]); } catch { /* not mounted */ } rmSync(mnt, { recursive: true, force: true }); });

  const run = (args: string[]) => new Promise<{ code: number | null; stderr: string; ms: number }>((resolve) => {
    const started = Date.now();
    const proc = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    proc.once('exit', (code) => { clearTimeout(timer); resolve({ code, stderr, ms: Date.now() - started }); });
  });

  function fillDisk(): void {
    // Up to ENOSPC: the file system has no free block left.
    try { execFileSync('dd', ['if=/dev/zero', `of=${join(mnt, 'fill')}`, 'bs=4k'], { stdio: 'ignore' }); } catch { /* dd exits 1 at ENOSPC */ }
  }

  test('k8ts server exits non-zero with a clear message, never half-alive', async () => {
    const dataDir = join(mnt, 'server');
    const cluster = await startCluster({ dataDir, extraArgs: ['--controllers', 'none'] });
    await cluster.stop();
    fillDisk();
    const r = await run(['server', '--data-dir', dataDir, '--port', '0', '--controllers', 'none']);
    assert.notEqual(r.code, 0, r.stderr);
    assert.notEqual(r.code, null, `still running after 30 s (killed): ${r.stderr}`);
    assert.match(r.stderr, /no space left on device/);
    rmSync(join(mnt, 'fill'));
  });

  test('k8ts up on a full disk exits non-zero', async () => {
    const dataDir = join(mnt, 'up');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'placeholder'), '');
    fillDisk();
    const r = await run(['up', '--data-dir', dataDir, '--port', '0']);
    assert.notEqual(r.code, 0, r.stderr);
    assert.notEqual(r.code, null, `still running after 30 s (killed): ${r.stderr}`);
    assert.match(r.stderr, /no space left on device/);
    rmSync(join(mnt, 'fill'));
  });
});

/**
 * `k8ts dashboard --kubeconfig F` (a local server as `kubectl proxy` is) and
 * `k8ts server --dashboard`: a real server, the real kubectl, Debian's
 * chromium driven by playwright-core. The page served by the proxy needs no
 * login and acts as the kubeconfig's user: kubeadm-style admin.conf (a client
 * certificate) sees the nodes; a user whose certificate came through the CSR
 * API sees what its Role allows. A foreign Host (DNS rebinding) and
 * cross-site requests (CSRF, from a real page on another origin) get 403 and
 * change nothing.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { Browser, Page } from 'playwright-core';
import { cliPath, eventually, startCluster, type Cluster } from './harness.js';
import { killChild, lineReader, manifestDir } from './helpers.js';
import { launchBrowser } from './dashboard-browser.js';

let cluster: Cluster;
let browser: Browser;
let files: ReturnType<typeof manifestDir>;
const proxies: ChildProcess[] = [];

interface Proxy { child: ChildProcess; url: string; port: number }

/** `k8ts dashboard --kubeconfig F --port 0`, resolved with the URL of the one line it prints. */
async function startProxy(kubeconfig: string): Promise<Proxy> {
  const child = spawn(process.execPath, [cliPath, 'dashboard', '--kubeconfig', kubeconfig, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  proxies.push(child);
  const out = lineReader(child);
  const at = await out.waitFor((l) => l.startsWith('Starting to serve the dashboard on '), 'the URL line', 0, 60_000);
  const url = out.lines[at].replace('Starting to serve the dashboard on ', '').trim();
  return { child, url, port: Number(new URL(url).port) };
}

/** A plain HTTP request to the proxy with exactly these headers (no browser adds any). */
function request(port: number, path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: { Host: `127.0.0.1:${port}`, ...opts.headers } }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const kubectl = (...args: string[]) => cluster.kubectl(args);
const configMapExists = async (name: string) => (await cluster.kubectl(['get', 'configmap', name, '-n', 'default'], { allowFail: true })).code === 0;

/** A node the map can show, and a pod bound to it (no kubelet runs: it stays Pending on its node). */
const nodeManifest = (name: string) => stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } });
const podManifest = (ns: string, name: string, node: string) => stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }] },
});

before(async () => {
  cluster = await startCluster({ controllers: 'csrsigning', extraArgs: ['--dashboard'] });
  files = manifestDir();
  await kubectl('create', 'namespace', 'team-a');
  for (const doc of [nodeManifest('worker-a'), nodeManifest('worker-b'), podManifest('team-a', 'mine', 'worker-a'), podManifest('default', 'theirs', 'worker-b')]) {
    await cluster.kubectl(['apply', '-f', '-'], { input: doc });
  }
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  for (const p of proxies) await killChild(p);
  files?.close();
  await cluster?.cleanup();
});

/** A fresh browser page on the proxy's URL (no token typed anywhere). */
async function openPage(url: string): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 640 } });
  const page = await ctx.newPage();
  await page.goto(url);
  return page;
}

let admin: Proxy;

test('k8ts dashboard --kubeconfig admin.conf (a client certificate): the page needs no login and shows the nodes', async () => {
  assert.ok(parse(readFileSync(cluster.kubeconfig, 'utf8')).users[0].user['client-certificate-data'], 'admin.conf holds a client certificate');
  admin = await startProxy(cluster.kubeconfig);
  assert.match(admin.url, /^http:\/\/127\.0\.0\.1:\d+\/dashboard\/$/);
  const page = await openPage(admin.url);
  try {
    await page.waitForSelector('section[aria-label="node worker-a"]', { timeout: 30_000 });
    await page.waitForSelector('section[aria-label="node worker-b"]');
    await page.waitForSelector('[data-pod="team-a/mine"]');
    await page.waitForSelector('[data-pod="default/theirs"]');
    assert.equal(await page.locator('#token').count(), 0, 'no login form');
    // Live through the proxy's streamed watch: a node created now appears without a reload.
    await cluster.kubectl(['apply', '-f', '-'], { input: nodeManifest('worker-c') });
    await page.waitForSelector('section[aria-label="node worker-c"]', { timeout: 30_000 });
    // The placement API answers here too, with the kubeconfig's user.
    const placement = await page.evaluate(async () => {
      const r = await fetch('/dashboard/api/placement/namespaces/team-a/pods/mine');
      return { status: r.status, body: await r.json() };
    });
    assert.equal(placement.status, 200);
    assert.deepEqual(placement.body.nodes.map((n: { node: string }) => n.node).sort(), ['worker-a', 'worker-b', 'worker-c']);
    // A write from the page itself (same origin) is the user's to make.
    const created = await page.evaluate(async () => (await fetch('/api/v1/namespaces/default/configmaps', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-page' } }),
    })).status);
    assert.equal(created, 201);
    assert.ok(await configMapExists('from-page'));
  } finally {
    await page.context().close();
  }
});

test('a request whose Host is not the loopback name it serves gets 403 (DNS rebinding)', async () => {
  const rebound = await request(admin.port, '/api/v1/nodes', { headers: { Host: `evil.example:${admin.port}` } });
  assert.equal(rebound.status, 403);
  assert.equal(rebound.body, 'Forbidden\n');
  assert.equal((await request(admin.port, '/dashboard/', { headers: { Host: `attacker.127.0.0.1.nip.io:${admin.port}` } })).status, 403);
  // The names it does serve, and a program that is not a browser (no Origin): the API as the kubeconfig's user.
  for (const host of [`127.0.0.1:${admin.port}`, `localhost:${admin.port}`]) {
    const ok = await request(admin.port, '/api/v1/nodes', { headers: { Host: host } });
    assert.equal(ok.status, 200, host);
    assert.equal(JSON.parse(ok.body).items.length, 3);
  }
  const config = await request(admin.port, '/dashboard/config');
  assert.deepEqual(JSON.parse(config.body), { kind: 'DashboardConfig', credentials: 'kubeconfig', context: parse(readFileSync(cluster.kubeconfig, 'utf8'))['current-context'] });
});

test('cross-site requests get 403 and change nothing (CSRF), from raw headers and from a real page on another origin', async () => {
  const post = (headers: Record<string, string>, name: string) => request(admin.port, '/api/v1/namespaces/default/configmaps', {
    method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
  });
  assert.equal((await post({ Origin: 'http://evil.example' }, 'csrf-origin')).status, 403);
  assert.equal((await post({ Origin: 'null' }, 'csrf-null')).status, 403);
  assert.equal((await post({ 'Sec-Fetch-Site': 'cross-site' }, 'csrf-fetch-site')).status, 403);
  // A WebSocket handshake from another origin (CORS does not guard WebSockets).
  const ws = await request(admin.port, '/api/v1/namespaces/team-a/pods/mine/exec?command=sh&stdin=true&stdout=true', {
    headers: { Origin: 'http://evil.example', Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' },
  }).catch((e: Error) => ({ status: 0, body: e.message, headers: {} }));
  assert.equal(ws.status, 403);
  // A real page on another port of 127.0.0.1 (same site, another origin) posts with a form and with fetch.
  const attacker = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(`<form id=f method=POST enctype=text/plain action="http://127.0.0.1:${admin.port}/api/v1/namespaces/default/configmaps">`
      + `<input name='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"csrf-form"},"x":"' value='"}'></form>`);
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', () => resolve()));
  const page = await openPage(`http://127.0.0.1:${(attacker.address() as { port: number }).port}/`);
  try {
    await page.evaluate(async (port) => {
      await fetch(`http://127.0.0.1:${port}/api/v1/namespaces/default/configmaps`, {
        method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'csrf-fetch' } }),
      });
    }, admin.port);
    const answer = page.waitForResponse((r) => r.url().endsWith('/configmaps'));
    await page.evaluate(() => (document.getElementById('f') as HTMLFormElement).submit());
    assert.equal((await answer).status(), 403);
  } finally {
    await page.context().close();
    attacker.close();
  }
  for (const name of ['csrf-origin', 'csrf-null', 'csrf-fetch-site', 'csrf-fetch', 'csrf-form']) assert.equal(await configMapExists(name), false, name);
});

/** A client certificate for `subject` through the CSR API: openssl key and request, kubectl certificate approve, csrsigning signs. */
async function certificateFor(name: string, subject: string): Promise<{ cert: string; key: string }> {
  const keyFile = files.write(`${name}.key`, '');
  const csr = execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-subj', subject],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  await cluster.kubectl(['apply', '-f', '-'], { input: stringify({
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
    spec: { request: Buffer.from(csr).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
  }) });
  await kubectl('certificate', 'approve', name);
  const cert = await eventually(async () => (await kubectl('get', 'csr', name, '-o', 'jsonpath={.status.certificate}')).stdout.trim(), 60_000, 'the signed certificate');
  return { cert: Buffer.from(cert, 'base64').toString('utf8'), key: readFileSync(keyFile, 'utf8') };
}

test('an RBAC-limited user (client certificate from the CSR API) sees only what its Role allows', async () => {
  const { cert, key } = await certificateFor('jane', '/O=team-a-viewers/CN=jane');
  await kubectl('create', 'role', 'pod-viewer', '-n', 'team-a', '--verb=get,list,watch', '--resource=pods');
  await kubectl('create', 'rolebinding', 'jane-views', '-n', 'team-a', '--role=pod-viewer', '--user=jane');
  const admin = parse(readFileSync(cluster.kubeconfig, 'utf8'));
  const path = join(cluster.dataDir, 'jane.conf');
  writeFileSync(path, stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'jane@team-a',
    clusters: admin.clusters,
    users: [{ name: 'jane', user: { 'client-certificate-data': Buffer.from(cert).toString('base64'), 'client-key-data': Buffer.from(key).toString('base64') } }],
    contexts: [{ name: 'jane@team-a', context: { cluster: admin.clusters[0].name, user: 'jane', namespace: 'team-a' } }],
  }), { mode: 0o600 });
  const jane = await startProxy(path);
  const page = await openPage(jane.url);
  try {
    await page.waitForSelector('[data-pod="team-a/mine"]', { timeout: 30_000 });
    assert.equal(await page.locator('header .scope').innerText(), 'namespace team-a');
    assert.deepEqual(await page.locator('[data-pod]').evaluateAll((els) => els.map((e) => e.getAttribute('data-pod'))), ['team-a/mine']);
    assert.equal(await page.getByRole('button', { name: 'Taint…' }).count(), 0);
    const refused = await page.evaluate(async () => {
      const r = await fetch('/api/v1/nodes');
      return { status: r.status, body: await r.json() };
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, 'nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the cluster scope');
    const placement = await page.evaluate(async () => (await fetch('/dashboard/api/placement/namespaces/team-a/pods/mine')).json());
    assert.match(placement.message, /nodes is forbidden: User "jane" cannot list resource "nodes"/);
  } finally {
    await page.context().close();
  }
  // SIGTERM ends it cleanly, watches open or not.
  jane.child.kill('SIGTERM');
  const code = await new Promise<number | null>((resolve) => jane.child.once('exit', (c) => resolve(c)));
  assert.equal(code, 0);
});

/** `k8ts dashboard ARGS` run to its end: exit code and output. */
function runDashboard(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, 'dashboard', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = ''; let stderr = '';
    child.stdout!.on('data', (d) => { stdout += d; });
    child.stderr!.on('data', (d) => { stderr += d; });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('bad input gets kubectl\'s words and nothing is served', async () => {
  const missing = await runDashboard(['--kubeconfig', join(cluster.dataDir, 'nope.conf')]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, `error: stat ${join(cluster.dataDir, 'nope.conf')}: no such file or directory\n`);
  const context = await runDashboard(['--kubeconfig', cluster.kubeconfig, '--context', 'nope']);
  assert.equal(context.stderr, 'error: context was not found for specified context: nope\n');
  const badPort = await runDashboard(['--kubeconfig', cluster.kubeconfig, '--port', '70000']);
  assert.equal(badPort.stderr, 'error: invalid argument "70000" for "-p, --port" flag: must be 0-65535\n');
  const badMetrics = await runDashboard(['--kubeconfig', cluster.kubeconfig, '--metrics-bind-address', '9090']);
  assert.equal(badMetrics.stderr, 'error: invalid argument "9090" for "--metrics-bind-address" flag: want host:port\n');
  const inUse = await runDashboard(['--kubeconfig', cluster.kubeconfig, '--port', String(admin.port)]);
  assert.equal(inUse.stderr, `error: listen tcp 127.0.0.1:${admin.port}: bind: address already in use\n`);
  assert.equal(inUse.stdout, '');
});

test('--metrics-bind-address serves /metrics: requests served and refused', async () => {
  const child = spawn(process.execPath, [cliPath, 'dashboard', '--kubeconfig', cluster.kubeconfig, '--port', '0', '--metrics-bind-address', '127.0.0.1:0'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, K8TS_LOG_LEVEL: 'info' } });
  proxies.push(child);
  let log = '';
  child.stderr!.on('data', (d) => { log += d; });
  const out = lineReader(child);
  const at = await out.waitFor((l) => l.startsWith('Starting to serve the dashboard on '), 'the URL line', 0, 60_000);
  const port = Number(new URL(out.lines[at].replace('Starting to serve the dashboard on ', '').trim()).port);
  const ready = await eventually(async () => log.split('\n').map((l) => { try { return JSON.parse(l); } catch { return undefined; } })
    .find((r) => r?.msg === 'dashboard proxy ready'), 30_000, 'the ready log record');
  assert.equal((await request(port, '/api', { headers: { Host: 'evil.example' } })).status, 403);
  assert.equal((await request(port, '/api')).status, 200);
  const text = await new Promise<string>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: ready.metricsPort, path: '/metrics' }, (res) => { let b = ''; res.on('data', (d) => { b += d; }); res.on('end', () => resolve(b)); }).on('error', reject);
  });
  assert.match(text, /^k8ts_dashboard_proxy_refused_total\{reason="host"\} 1$/m);
  assert.match(text, /^k8ts_dashboard_proxy_requests_total\{route="api"\} 1$/m);
  assert.match(log, /"msg":"request refused","reason":"host","value":"evil.example"/);
  await killChild(child);
  assert.equal(child.exitCode, 0);
});

test('k8ts server --dashboard serves the page on the API server\'s port; it asks for a token there', async () => {
  const ca = Buffer.from(parse(readFileSync(cluster.kubeconfig, 'utf8')).clusters[0].cluster['certificate-authority-data'], 'base64');
  const get = (path: string) => new Promise<{ status: number; type: string }>((resolve, reject) => {
    https.get(new URL(path, cluster.url), { ca }, (res) => { res.resume(); res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']) })); }).on('error', reject);
  });
  assert.deepEqual(await get('/dashboard/'), { status: 200, type: 'text/html; charset=utf-8' });
  const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
  try {
    await page.goto(new URL('/dashboard/', cluster.url).href);
    await page.waitForSelector('#token');
  } finally {
    await page.context().close();
  }
});

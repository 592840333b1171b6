/**
 * `k8ts dashboard` passes HTTP Upgrades through with the kubeconfig's client
 * certificate, so exec works through it as through `kubectl proxy` (without
 * kubectl proxy's default refusal of exec paths: the Origin check stands in
 * for it). A pod of a real containerd node (containerd.ts, real-node.ts):
 * kubectl pointed at the proxy execs over WebSocket and over SPDY; the
 * dashboard page opens an exec WebSocket (v5.channel.k8s.io) in chromium and
 * reads the command's output; a page on another origin cannot open one, and
 * the kubelet starts no session for it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { cliPath, eventually, startCluster, type Cluster } from './harness.js';
import { killChild, lineReader } from './helpers.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';
import { startCRIAgent, type CRIAgent } from './real-node.js';
import { launchBrowser } from './dashboard-browser.js';

const nodeName = 'dashproxy-exec-node';
let cluster: Cluster | undefined;
let ctrd: PrivateContainerd | undefined;
let agent: CRIAgent | undefined;
let proxy: ChildProcess | undefined;
let browser: Browser | undefined;
let port = 0;
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-dashproxy-exec-'));

before(async () => {
  ctrd = await startContainerd({ streaming: true, podSubnet: '10.244.23.0/24' });
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' });
  agent = startCRIAgent({ cluster, ctrd, nodeName, work });
  await cluster.kubectl(['create', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'box', namespace: 'default' },
      spec: { nodeName, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: busyboxImage, command: ['sleep', '3600'] }] },
    }),
  });
  await eventually(async () => JSON.parse((await cluster!.kubectl(['get', 'pod', 'box', '-o', 'json'])).stdout).status?.phase === 'Running', 90_000, 'box Running');
  proxy = spawn(process.execPath, [cliPath, 'dashboard', '--kubeconfig', cluster.kubeconfig, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = lineReader(proxy);
  const at = await out.waitFor((l) => l.startsWith('Starting to serve the dashboard on '), 'the URL line', 0, 60_000);
  port = Number(new URL(out.lines[at].replace('Starting to serve the dashboard on ', '').trim()).port);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (proxy) await killChild(proxy);
  await agent?.stop();
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** kubectl with no credentials of its own, pointed at the proxy (as at `kubectl proxy`). */
function kubectlViaProxy(args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string; code: number }> {
  const empty = join(work, 'empty.conf');
  writeFileSync(empty, 'apiVersion: v1\nkind: Config\n');
  return new Promise((resolve) => {
    const child = execFile('kubectl', ['--kubeconfig', empty, '--server', `http://127.0.0.1:${port}`, '--cache-dir', join(work, 'kubectl-cache'), ...args], {
      env: { ...process.env, ...env }, timeout: 60_000,
    }, (err, stdout, stderr) => resolve({ stdout, stderr, code: err ? 1 : 0 }));
    child.stdin!.end();
  });
}

const sessions = () => (agent!.log().match(/"exec session started"/g) ?? []).length;

test('kubectl exec through the proxy: WebSocket and SPDY upgrades carry the client certificate', async () => {
  const ws = await kubectlViaProxy(['exec', 'box', '--', 'echo', 'hi']);
  assert.equal(ws.stdout, 'hi\n', ws.stderr);
  const spdy = await kubectlViaProxy(['exec', 'box', '--', 'sh', '-c', 'echo spdy'], { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' });
  assert.equal(spdy.stdout, 'spdy\n', spdy.stderr);
});

/** In the page: an exec WebSocket to `url`, resolved with what arrived on stdout (channel 1) by the time it closed. */
const execInPage = (url: string) => new Promise<{ out: string; error: boolean }>((resolve) => {
  const ws = new WebSocket(url, ['v5.channel.k8s.io']);
  ws.binaryType = 'arraybuffer';
  let out = '';
  let error = false;
  ws.onmessage = (m) => { const b = new Uint8Array(m.data as ArrayBuffer); if (b[0] === 1) out += new TextDecoder().decode(b.slice(1)); };
  ws.onerror = () => { error = true; };
  ws.onclose = () => resolve({ out, error });
});

test('the dashboard page execs over a WebSocket through the proxy; a page on another origin cannot', async () => {
  const exec = `ws://127.0.0.1:${port}/api/v1/namespaces/default/pods/box/exec?command=echo&command=from-page&stdout=true`;
  const page = await (await browser!.newContext()).newPage();
  try {
    await page.goto(`http://127.0.0.1:${port}/dashboard/`);
    const r = await page.evaluate(execInPage, exec);
    assert.deepEqual(r, { out: 'from-page\n', error: false });
  } finally {
    await page.context().close();
  }
  const before = sessions();
  const attacker = http.createServer((_req, res) => { res.writeHead(200, { 'Content-Type': 'text/html' }); res.end('<p>elsewhere</p>'); });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', () => resolve()));
  const evil = await (await browser!.newContext()).newPage();
  try {
    await evil.goto(`http://127.0.0.1:${(attacker.address() as { port: number }).port}/`);
    const r = await evil.evaluate(execInPage, exec);
    assert.deepEqual(r, { out: '', error: true });
  } finally {
    await evil.context().close();
    attacker.close();
  }
  assert.equal(sessions(), before, 'no exec session started for the other origin');
});

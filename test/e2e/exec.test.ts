/**
 * kubectl exec, exec -it, attach-free streaming and kubectl cp against pods
 * of a real containerd (containerd.ts), through the API server and the
 * kubelet's API: kubectl (v5.channel.k8s.io WebSocket, or SPDY/3.1 when
 * forced) → API server → kubelet (client certificate) → containerd's
 * streaming server (SPDY v4.channel.k8s.io, reached over a private veth
 * pair). Also @kubernetes/client-node's Exec.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { PassThrough, Writable } from 'node:stream';
import { Exec, KubeConfig } from './client-node-package.js';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, eventually, type Cluster } from './harness.js';
import { adminCredentials, underTerminal } from './helpers.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';
import { startCRIAgent, type CRIAgent } from './real-node.js';

const nodeName = 'exec-node';
let cluster: Cluster | undefined;
let ctrd: PrivateContainerd | undefined;
let agent: CRIAgent | undefined;
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-exec-'));

before(async () => {
  ctrd = await startContainerd({ streaming: true, podSubnet: '10.244.7.0/24' });
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' }); // pods mount kube-root-ca.crt (kube-api-access)
  agent = startCRIAgent({ cluster, ctrd, nodeName, work });
  await cluster.kubectl(['create', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'box', namespace: 'default' },
      spec: { nodeName, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: busyboxImage, command: ['sleep', '3600'] }] },
    }),
  });
  await eventually(async () => JSON.parse((await cluster!.kubectl(['get', 'pod', 'box', '-o', 'json'])).stdout).status?.phase === 'Running', 60_000, 'box Running');
});

after(async () => {
  await agent?.stop();
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** kubectl with extra environment (e.g. KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false forces SPDY) and optional stdin. */
function kubectlWith(env: Record<string, string>, args: string[], input?: string): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    const child = execFile('kubectl', ['--kubeconfig', cluster!.kubeconfig, '--cache-dir', join(cluster!.dataDir, 'kubectl-cache'), ...args], {
      env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024, timeout: 60_000,
    }, (err, stdout, stderr) => resolve({ stdout, stderr, code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0 }));
    if (input !== undefined) child.stdin!.end(input); else child.stdin!.end();
  });
}

const spdyOnly = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };

describe('kubectl exec through the API server and the kubelet (containerd)', () => {
  test('exec runs a command and prints its output', async () => {
    const r = await cluster!.kubectl(['-v=8', 'exec', 'box', '--', 'echo', 'hi']);
    assert.equal(r.stdout, 'hi\n');
    // What kubectl 1.32 sends (its own request log at -v=8): a GET upgrade to WebSocket, v5 only.
    assert.match(r.stderr, /GET https:\/\/[^ ]+\/api\/v1\/namespaces\/default\/pods\/box\/exec\?command=echo&command=hi&container=main&stderr=true&stdout=true/);
    assert.match(r.stderr, /Sec-Websocket-Protocol: v5\.channel\.k8s\.io\n/i);
    const both = await cluster!.kubectl(['exec', 'box', '-c', 'main', '--', 'sh', '-c', 'echo out; echo err >&2']);
    assert.equal(both.stdout, 'out\n');
    assert.equal(both.stderr, 'err\n');
    assert.match(agent!.log(), /"exec session started".*"protocol":"v5\.channel\.k8s\.io".*"runtimeProtocol":"v4\.channel\.k8s\.io"/);
  });

  test('a non-zero exit code propagates', async () => {
    const r = await cluster!.kubectl(['exec', 'box', '--', 'sh', '-c', 'exit 3'], { allowFail: true });
    assert.equal(r.code, 3);
    assert.match(r.stderr, /command terminated with exit code 3/);
  });

  test('stdin reaches the command (exec -i)', async () => {
    const r = await cluster!.kubectl(['exec', '-i', 'box', '--', 'sh', '-c', 'read x; echo got:$x'], { input: 'abc\n' });
    assert.equal(r.stdout, 'got:abc\n');
  });

  test('exec -it: an interactive shell on a terminal', async () => {
    const kubectl = `kubectl --kubeconfig ${cluster!.kubeconfig} --cache-dir ${join(cluster!.dataDir, 'kubectl-cache')} exec -it box -- sh`;
    const r = await underTerminal(kubectl, ['echo $((6*7)); tty\r', 'stty size\r', 'exit 4\r']);
    assert.match(r.out, /\b42\b/);
    assert.match(r.out, /\/dev\/pts\/\d+/, 'the command has a terminal');
    assert.equal(r.code, 4, r.out);
  });

  test('errors in upstream words', async () => {
    const badContainer = await cluster!.kubectl(['exec', 'box', '-c', 'nope', '--', 'true'], { allowFail: true });
    assert.notEqual(badContainer.code, 0);
    assert.match(badContainer.stderr, /container nope is not valid for pod box/);
    await cluster!.kubectl(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'unbound' }, spec: { containers: [{ name: 'main', image: busyboxImage }] } }),
    });
    const unbound = await cluster!.kubectl(['exec', 'unbound', '--', 'true'], { allowFail: true });
    assert.notEqual(unbound.code, 0);
    assert.match(unbound.stderr, /pod unbound does not have a host assigned/);
    const missing = await cluster!.kubectl(['exec', 'ghost', '--', 'true'], { allowFail: true });
    assert.match(missing.stderr, /pods "ghost" not found/);
  });

  test('kubectl cp copies out of the container', async () => {
    await cluster!.kubectl(['exec', 'box', '--', 'sh', '-c', 'mkdir -p /data && echo payload > /data/f.txt']);
    const dest = join(work, 'out.txt');
    await cluster!.kubectl(['cp', 'box:/data/f.txt', dest]);
    assert.equal(readFileSync(dest, 'utf8'), 'payload\n');
  });

  test('stdin EOF reaches the command: echo data | kubectl exec -i -- cat (WebSocket v5)', async () => {
    const r = await kubectlWith({}, ['exec', '-i', 'box', '--', 'cat'], 'data\nmore\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'data\nmore\n');
    const wc = await kubectlWith({}, ['exec', '-i', 'box', '--', 'wc', '-c'], 'x'.repeat(300_000));
    assert.equal(wc.stdout.trim(), '300000');
    assert.match(agent!.log(), /"exec session started".*"protocol":"v5\.channel\.k8s\.io".*"transport":"SPDY\/3\.1"/);
  });

  test('exec over SPDY (KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false): output, stdin EOF, exit code', async () => {
    const r = await kubectlWith(spdyOnly, ['-v=6', 'exec', '-i', 'box', '--', 'cat'], 'spdy-data\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'spdy-data\n');
    assert.match(r.stderr, /POST https:\/\/[^ ]+\/pods\/box\/exec\?[^ ]* 101 Switching Protocols/);
    const both = await kubectlWith(spdyOnly, ['exec', 'box', '--', 'sh', '-c', 'echo out; echo err >&2; exit 5']);
    assert.equal(both.stdout, 'out\n');
    assert.equal(both.stderr, 'err\ncommand terminated with exit code 5\n');
    assert.equal(both.code, 5);
  });

  test('kubectl cp copies into the container and back out (WebSocket and SPDY)', async () => {
    const src = join(work, 'in.bin');
    const payload = Buffer.alloc(200_000);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 7919) % 251;
    writeFileSync(src, payload);
    for (const [env, name] of [[{}, 'ws'], [spdyOnly, 'spdy']] as const) {
      const put = await kubectlWith(env, ['cp', src, `box:/tmp/in-${name}.bin`]);
      assert.equal(put.code, 0, put.stderr);
      const size = await cluster!.kubectl(['exec', 'box', '--', 'wc', '-c', `/tmp/in-${name}.bin`]);
      assert.match(size.stdout, /^\s*200000 /);
      const back = join(work, `back-${name}.bin`);
      const get = await kubectlWith(env, ['cp', `box:/tmp/in-${name}.bin`, back]);
      assert.equal(get.code, 0, get.stderr);
      assert.ok(readFileSync(back).equals(payload), `the ${name} round trip kept every byte`);
    }
  });

  test('@kubernetes/client-node Exec: stdout, stdin EOF and the exit Status', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(cluster!.kubeconfig);
    let out = '';
    const stdout = new Writable({ write(chunk, _enc, cb) { out += chunk.toString(); cb(); } });
    const stdin = new PassThrough();
    const status = new Promise<{ status?: string }>((resolve) => {
      void new Exec(kc).exec('default', 'box', 'main', ['sh', '-c', 'cat; echo done'], stdout, null, stdin, false, (s) => resolve(s as { status?: string }));
    });
    stdin.end('from-client-node\n');
    assert.equal((await status).status, 'Success');
    await eventually(async () => out === 'from-client-node\ndone\n', 10_000, `client-node output, got ${JSON.stringify(out)}`);
  });

  test('kubectl attach streams the main process output', async () => {
    await cluster!.kubectl(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ticker', namespace: 'default' },
        spec: { nodeName, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: busyboxImage, command: ['sh', '-c', 'i=0; while true; do i=$((i+1)); echo tick-$i; sleep 0.2; done'] }] },
      }),
    });
    await eventually(async () => JSON.parse((await cluster!.kubectl(['get', 'pod', 'ticker', '-o', 'json'])).stdout).status?.phase === 'Running', 60_000, 'ticker Running');
    const child = cluster!.spawnKubectl(['attach', 'ticker']);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    try {
      await eventually(async () => /tick-\d+\n.*tick-\d+\n/s.test(out), 20_000, `attach output, got: ${out}`);
    } finally {
      child.kill('SIGTERM');
    }
    // The same over SPDY.
    const spdy = spawn('kubectl', ['--kubeconfig', cluster!.kubeconfig, '--cache-dir', join(cluster!.dataDir, 'kubectl-cache'), 'attach', 'ticker'], {
      stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...spdyOnly },
    });
    let spdyOut = '';
    spdy.stdout.on('data', (d: Buffer) => { spdyOut += d.toString(); });
    spdy.stderr.on('data', (d: Buffer) => { spdyOut += d.toString(); });
    try {
      await eventually(async () => /tick-\d+\n.*tick-\d+\n/s.test(spdyOut), 20_000, `attach output over SPDY, got: ${spdyOut}`);
    } finally {
      spdy.kill('SIGTERM');
    }
  });

  test('an upgrade request to anything but exec/attach is served as plain HTTP', async () => {
    const status = await new Promise<{ code: number; body: string }>((resolve, reject) => {
      const req = https.request(new URL('/api/v1/namespaces/default/pods/box', cluster!.url), {
        ...adminCredentials(cluster!.kubeconfig), agent: false,
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' },
      });
      req.on('response', (res) => { let body = ''; res.on('data', (d: Buffer) => { body += d.toString(); }); res.on('end', () => resolve({ code: res.statusCode!, body })); });
      req.on('upgrade', () => reject(new Error('upgraded a pod GET')));
      req.on('error', reject);
      req.end();
    });
    assert.equal(status.code, 200);
    assert.equal(JSON.parse(status.body).metadata.name, 'box');
  });

  test('a garbage upgrade of pods/exec gets a 400 and the server keeps serving', async () => {
    for (const upgrade of ['garbage', 'h2c', 'SPDY/3.1']) {
      const status = await new Promise<{ code: number; body: string }>((resolve, reject) => {
        const req = https.request(new URL('/api/v1/namespaces/default/pods/box/exec?command=true&stdout=true', cluster!.url), {
          ...adminCredentials(cluster!.kubeconfig), agent: false, method: 'POST',
          // SPDY without X-Stream-Protocol-Version is refused by the runtime's handshake, as upstream's.
          headers: { Connection: 'Upgrade', Upgrade: upgrade },
        });
        req.on('response', (res) => { let body = ''; res.on('data', (d: Buffer) => { body += d.toString(); }); res.on('end', () => resolve({ code: res.statusCode!, body })); });
        req.on('upgrade', (_res, socket) => { socket.destroy(); reject(new Error(`upgraded to ${upgrade}`)); });
        req.on('error', reject);
        req.end();
      });
      assert.equal(status.code, 400, `${upgrade}: ${status.body}`);
    }
    const r = await cluster!.kubectl(['exec', 'box', '--', 'echo', 'alive']);
    assert.equal(r.stdout, 'alive\n');
  });

  test('the kubelet refuses an anonymous exec', async () => {
    const node = JSON.parse((await cluster!.kubectl(['get', 'node', nodeName, '-o', 'json'])).stdout);
    const port = node.status.daemonEndpoints.kubeletEndpoint.Port;
    const status = await new Promise<number>((resolve, reject) => {
      const req = https.request({
        host: '127.0.0.1', port, path: '/exec/default/box/main?command=id&output=1', rejectUnauthorized: false,
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol': 'v5.channel.k8s.io' },
      });
      req.on('response', (res) => { res.resume(); resolve(res.statusCode!); });
      req.on('upgrade', () => reject(new Error('an anonymous caller was upgraded')));
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 401);
    // The kubelet still serves afterwards.
    const r = await cluster!.kubectl(['exec', 'box', '--', 'echo', 'still']);
    assert.equal(r.stdout, 'still\n');
  });
});

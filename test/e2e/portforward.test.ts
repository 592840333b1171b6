/**
 * kubectl port-forward and @kubernetes/client-node's PortForward against a
 * busybox httpd in a real containerd pod (containerd.ts), through the API
 * server and the kubelet: the client → API server (SPDY tunneled in
 * WebSocket, plain SPDY, or v4.channel.k8s.io WebSocket channels) → kubelet
 * → containerd's streaming server, which dials the port inside the pod's
 * network namespace. Test traffic stays on loopback and inside the test's
 * namespaces.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { KubeConfig, PortForward } from './client-node-package.js';
import { startCluster, eventually, type Cluster } from './harness.js';
import { adminCredentials, kubectlPortForward } from './helpers.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';
import { startCRIAgent, type CRIAgent } from './real-node.js';

const nodeName = 'pf-node';
let cluster: Cluster | undefined;
let ctrd: PrivateContainerd | undefined;
let agent: CRIAgent | undefined;
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-pf-'));

before(async () => {
  ctrd = await startContainerd({ streaming: true, podSubnet: '10.244.9.0/24' });
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' }); // pods mount kube-root-ca.crt (kube-api-access)
  agent = startCRIAgent({ cluster, ctrd, nodeName, work });
  await cluster.kubectl(['create', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
      spec: {
        nodeName, terminationGracePeriodSeconds: 1,
        containers: [{ name: 'httpd', image: busyboxImage, command: ['sh', '-c', 'mkdir -p /www && echo hello-from-pod > /www/index.html && exec httpd -f -p 80 -h /www'], ports: [{ containerPort: 80 }] }],
      },
    }),
  });
  await eventually(async () => JSON.parse((await cluster!.kubectl(['get', 'pod', 'web', '-o', 'json'])).stdout).status?.phase === 'Running', 60_000, 'web Running');
});

after(async () => {
  await agent?.stop();
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** `kubectl port-forward --address 127.0.0.1 ARGS` with kubectl's cache in the cluster's data directory. */
const portForward = (args: string[], env: Record<string, string> = {}) =>
  kubectlPortForward(cluster!.kubeconfig, ['--cache-dir', join(cluster!.dataDir, 'kubectl-cache'), '--address', '127.0.0.1', ...args], env);

function get(port: number, path = '/'): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve({ code: res.statusCode!, body }));
    }).on('error', reject);
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

describe('port-forward through the API server and the kubelet (containerd)', () => {
  test('kubectl port-forward (SPDY tunneled in WebSocket) reaches httpd in the pod', async () => {
    const pf = await portForward(['-v=8', 'pod/web', ':80']);
    try {
      for (let i = 0; i < 3; i++) {
        const r = await get(pf.port);
        assert.equal(r.code, 200);
        assert.equal(r.body, 'hello-from-pod\n');
      }
      const missing = await get(pf.port, '/nope');
      assert.equal(missing.code, 404);
      // kubectl 1.32 asked for the tunnel and got it (its own request log at -v=8).
      assert.match(pf.out(), /Sec-Websocket-Protocol: SPDY\/3\.1\+portforward\.k8s\.io/i);
      assert.match(pf.out(), /Response Status: 101 Switching Protocols/);
      assert.doesNotMatch(pf.out(), /fallback/i);
    } finally {
      await stop(pf.child);
    }
  });

  test('kubectl port-forward over plain SPDY (KUBECTL_PORT_FORWARD_WEBSOCKETS=false)', async () => {
    const pf = await portForward(['pod/web', ':80'], { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' });
    try {
      const [a, b] = await Promise.all([get(pf.port), get(pf.port)]);
      assert.equal(a.body, 'hello-from-pod\n');
      assert.equal(b.body, 'hello-from-pod\n');
    } finally {
      await stop(pf.child);
    }
    assert.match(agent!.log(), /"portforward session started".*"protocol":"portforward\.k8s\.io".*"transport":"SPDY\/3\.1"/);
  });

  test('a closed port reports an error and the forward keeps serving', async () => {
    const pf = await portForward(['pod/web', ':81']);
    try {
      await get(pf.port).then(() => assert.fail('a request to a closed port succeeded'), () => {});
      await eventually(async () => /error forwarding port 81|connection refused/i.test(pf.out()), 20_000, `the forwarding error, got: ${pf.out()}`);
    } finally {
      await stop(pf.child);
    }
  });

  test('@kubernetes/client-node PortForward (v4.channel.k8s.io, ?ports=)', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(cluster!.kubeconfig);
    const output = new PassThrough();
    const errors = new PassThrough();
    let got = '';
    output.on('data', (d: Buffer) => { got += d.toString(); });
    // Kept open: client-node closes a v4 socket when its input ends.
    const input = new PassThrough();
    const ws = await new PortForward(kc).portForward('default', 'web', [80], output, errors, input);
    input.write('GET / HTTP/1.0\r\nHost: web\r\n\r\n');
    try {
      await eventually(async () => got.includes('hello-from-pod'), 20_000, `the HTTP answer through client-node, got: ${got}`);
      assert.match(got, /^HTTP\/1\.[01] 200 OK/);
    } finally {
      (ws as { close(): void }).close();
    }
  });

  test('a garbage upgrade of pods/portforward gets a 400 and forwarding keeps working', async () => {
    for (const headers of [{ Connection: 'Upgrade', Upgrade: 'garbage' }, { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol': 'v4.channel.k8s.io' }]) {
      const code = await new Promise<number>((resolve, reject) => {
        // A WebSocket without ?ports= has nothing to forward: the kubelet's 400, as upstream's.
        const req = https.request(new URL('/api/v1/namespaces/default/pods/web/portforward', cluster!.url), { ...adminCredentials(cluster!.kubeconfig), agent: false, headers });
        req.on('response', (res) => { res.resume(); resolve(res.statusCode!); });
        req.on('upgrade', (_res, socket) => { socket.destroy(); reject(new Error(`upgraded with ${headers.Upgrade}`)); });
        req.on('error', reject);
        req.end();
      });
      assert.equal(code, 400, headers.Upgrade);
    }
    const pf = await portForward(['pod/web', ':80']);
    try {
      assert.equal((await get(pf.port)).body, 'hello-from-pod\n');
    } finally {
      await stop(pf.child);
    }
  });

  test('errors in upstream words', async () => {
    const missing = await cluster!.kubectl(['port-forward', 'pod/ghost', ':80'], { allowFail: true });
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /pods "ghost" not found/);
  });
});

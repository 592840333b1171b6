/**
 * The API server's kubelet connections are kept alive, and a kubelet may close
 * an idle one just as the API server sends the next request on it. CI once saw
 * `kubectl logs` fail that way (`Error from server: Get "https://.../containerLogs/...":
 * read ECONNRESET`); Go's transport sends such an idempotent GET again on
 * another connection, and so must k8ts.
 *
 * The kubelet here is a small TLS server that answers the first request of
 * each connection and resets the connection (TCP RST) when a second one
 * arrives on it: the race, every time. The real kubectl asks for the same log
 * twice through a real `k8ts server`.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { startCluster, type Cluster } from './harness.js';
import { createCA, issueCertificate } from '../../src/pki/index.js';

const node = 'reset-node';

interface ResettingKubelet { port: number; resetEvery: boolean; requests: string[]; connections: number; resets: number; close(): Promise<void> }

async function startResettingKubelet(): Promise<ResettingKubelet> {
  const ca = await createCA({ commonName: 'reset-node-ca', days: 1 });
  const serving = await issueCertificate({ ca, commonName: node, ipAddresses: ['127.0.0.1'], usages: ['server'], days: 1 });
  const served = new WeakMap<Socket, number>();
  const tcp = new Map<number, Socket>();
  const state = { requests: [] as string[], connections: 0, resets: 0, resetEvery: false };
  const server = https.createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    state.requests.push(req.url ?? '');
    // An RST needs the TCP socket under the TLS one (a TLSSocket cannot resetAndDestroy): the one from the same port.
    if (n > 1 || state.resetEvery) { state.resets++; tcp.get(req.socket.remotePort!)!.resetAndDestroy(); return; }
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('hello from the kubelet\n');
  });
  server.keepAliveTimeout = 60_000; // the reset, not Node's idle timer, ends each connection
  server.on('connection', (socket: Socket) => {
    const port = socket.remotePort!;
    tcp.set(port, socket);
    socket.once('close', () => tcp.delete(port));
  });
  server.on('secureConnection', () => { state.connections++; });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get resetEvery() { return state.resetEvery; }, set resetEvery(v: boolean) { state.resetEvery = v; },
    get requests() { return state.requests; }, get connections() { return state.connections; }, get resets() { return state.resets; },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describe('a kubelet connection reset as it is reused', () => {
  let cluster: Cluster;
  let kubelet: ResettingKubelet;

  before(async () => {
    kubelet = await startResettingKubelet();
    cluster = await startCluster();
    await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: node } }) });
    await cluster.kubectl(['patch', 'node', node, '--subresource=status', '--type=merge', '-p', JSON.stringify({
      status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: kubelet.port } } },
    })]);
    await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
      spec: { nodeName: node, containers: [{ name: 'web', image: 'registry.k8s.io/pause:3.10' }] },
    }) });
  });

  after(async () => {
    await cluster?.cleanup();
    await kubelet?.close();
  });

  it('kubectl logs, asked twice, reads the log both times: the second GET is sent again on a new connection', async () => {
    const path = '/containerLogs/default/web/web';
    assert.equal((await cluster.kubectl(['logs', 'web'])).stdout, 'hello from the kubelet\n');
    assert.deepEqual([kubelet.requests, kubelet.connections, kubelet.resets], [[path], 1, 0]);
    const second = await cluster.kubectl(['logs', 'web'], { allowFail: true });
    assert.deepEqual([second.code, second.stderr, second.stdout], [0, '', 'hello from the kubelet\n']);
    // The reused connection was reset (so the race did happen), and the GET went out once more on a second one.
    assert.deepEqual([kubelet.requests, kubelet.connections, kubelet.resets], [[path, path, path], 2, 1]);
  });

  it('a reset on a fresh connection is not sent again: kubectl prints the round trip\'s error', async () => {
    kubelet.resetEvery = true;
    const before = { requests: kubelet.requests.length, connections: kubelet.connections };
    const failed = await cluster.kubectl(['logs', 'web'], { allowFail: true });
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, new RegExp(`^Error from server: Get "https://127\\.0\\.0\\.1:${kubelet.port}/containerLogs/default/web/web": read ECONNRESET\n$`));
    // Once on the kept-alive connection, once on a new one, which is where it stops.
    assert.deepEqual([kubelet.requests.length - before.requests, kubelet.connections - before.connections], [2, 1]);
  });
});

/**
 * Connections that never start TLS, stall in the handshake or never finish
 * their headers are closed after upstream's ReadHeaderTimeout (32 s, which Go
 * applies to the handshake too), not held for Node's 120 s (hardening issue,
 * finding 7), on the API server and on a node agent's kubelet port. The real
 * value is used: it is short enough to wait for. While the stalled
 * connections are open, another client of the API server is served.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import { spawn, type ChildProcess } from 'node:child_process';
import { cliPath, eventually, startCluster, type Cluster } from './harness.js';
import { killChild } from './helpers.js';
import { duringAttack } from './bystander.js';

interface Target { host: string; port: number }
let cluster: Cluster;
let agent: ChildProcess | undefined;
let apiserver: Target;
let kubelet: Target;
const nodeName = 'deadlines-node';

before(async () => {
  cluster = await startCluster();
  const url = new URL(cluster.url);
  apiserver = { host: url.hostname, port: Number(url.port) };
  agent = spawn(process.execPath, [cliPath, 'agent', '--kubeconfig', cluster.kubeconfig, '--node-name', nodeName, '--runtime', 'simulated',
    '--node-ip', '127.0.0.1', '--address', '127.0.0.1', '--kubelet-port', '0'], { stdio: ['ignore', 'ignore', 'ignore'] });
  const port = await eventually(async () => {
    const n = JSON.parse((await cluster.kubectl(['get', 'node', nodeName, '-o', 'json'], { allowFail: true })).stdout || '{}');
    return n.status?.daemonEndpoints?.kubeletEndpoint?.Port || undefined;
  }, 30_000, `${nodeName} registered with its kubelet port`);
  kubelet = { host: '127.0.0.1', port };
});
after(async () => {
  if (agent) await killChild(agent);
  await cluster?.cleanup();
});

const deadlineMs = 32_000;
/** Node looks for connections past their header deadline every quarter of it. */
const slackMs = deadlineMs / 4 + 3_000;

/** Resolves with how long the server kept the socket before closing it (or `giveUpMs` with closed=false). */
function heldFor(socket: net.Socket, giveUpMs: number): Promise<{ ms: number; closed: boolean }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (closed: boolean) => { clearTimeout(timer); socket.destroy(); resolve({ ms: performance.now() - started, closed }); };
    const timer = setTimeout(() => done(false), giveUpMs);
    socket.on('close', () => done(true));
    socket.on('error', () => done(true));
    socket.resume();
  });
}

function rawTCP(t: Target): net.Socket {
  return net.connect(t);
}

/** A connection that completes TLS, then sends the start of a request line and nothing more. */
function stalledHeaders(t: Target): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ ...t, rejectUnauthorized: false }, () => {
      socket.write('GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n');
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** How many connections that never start TLS each server is sent at once (the finding's attack, many times over). */
const silentConnections = 200;

/**
 * The stalled connections to one server: `silentConnections` that never send a byte, one stalled
 * in the TLS handshake and one stalled in its headers; resolves when the server has closed them
 * (or given up on), the silent ones first.
 */
async function stallAll(t: Target): Promise<{ ms: number; closed: boolean }[]> {
  const silent = Array.from({ length: silentConnections }, () => rawTCP(t));
  const halfHandshake = rawTCP(t);
  // The first bytes of a TLS record header (handshake, TLS 1.0 record version), then silence.
  halfHandshake.write(Buffer.from([0x16, 0x03, 0x01, 0x00]));
  const headers = await stalledHeaders(t);
  return Promise.all([...silent, halfHandshake, headers].map((s) => heldFor(s, deadlineMs + slackMs + 10_000)));
}

const what = (i: number) => (i < silentConnections ? `silent connection ${i}` : i === silentConnections ? 'half handshake' : 'stalled headers');

describe('connection deadlines', () => {
  test(`${silentConnections} connections that send nothing, one stalled in the TLS handshake and one stalled in its headers are closed after 32 s, while another client is served`, async () => {
    // The bystander asks the API server for /readyz and a GET every 100 ms, each within 1 s, for as long as the connections are held.
    const [api, node] = await duringAttack(cluster, () => Promise.all([stallAll(apiserver), stallAll(kubelet)]), { minSamples: 100 });
    for (const [server, results] of [['API server', api], ['kubelet', node]] as const) {
      assert.equal(results.length, silentConnections + 2);
      for (const [i, r] of results.entries()) {
        assert.ok(r.closed, `${server}, ${what(i)}: still open after ${Math.round(r.ms)} ms`);
        assert.ok(r.ms >= deadlineMs - 1_000, `${server}, ${what(i)}: closed after ${Math.round(r.ms)} ms, before the deadline`);
        assert.ok(r.ms <= deadlineMs + slackMs, `${server}, ${what(i)}: closed after ${Math.round(r.ms)} ms`);
      }
    }
  });
});

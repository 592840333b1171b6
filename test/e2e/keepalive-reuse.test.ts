/**
 * A kept-alive connection the API server closed while idle, taken by the client for its next
 * request (the 150,000-pod run ended on such a 'read ECONNRESET' after 58 minutes): the server
 * closes idle connections after its keep-alive timeout (65 s, announced as `Keep-Alive:
 * timeout=65`); a client whose loop is busy across that moment has not yet seen the close when it
 * sends. Reproduced exactly: the test's thread is blocked (Atomics.wait) for longer than the
 * server's timeout, and the request is sent before the loop runs again. The client replays a GET
 * on a reused connection that drops (Go's transport, shouldRetryRequest) and so gets its answer;
 * and its pool closes an idle connection before the server would, by the server's hint.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { startCluster, type Cluster } from './harness.js';
import { loadKubeconfig, RestClient } from '../../src/client/index.js';
import { PooledAgent } from '../../src/client/agent.js';

/** The API server's keep-alive timeout (src/apiserver/connections.ts defaultTimeouts). */
const serverKeepAliveMs = 65_000;

let cluster: Cluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster?.cleanup(); });

/** Blocks this thread, timers and sockets included, as a loaded client's loop is. */
function blockThread(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe('a kept-alive connection the server closed while the client was busy', () => {
  it('the server announces its keep-alive timeout, and the pool closes an idle connection a second before it', async () => {
    const cfg = loadKubeconfig(cluster.kubeconfig);
    const agent = new PooledAgent({ keepAlive: true, ca: cfg.caPem, cert: cfg.certPem, key: cfg.keyPem });
    try {
      const url = new URL(`${cfg.server}/version`);
      const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
        https.get({ hostname: url.hostname, port: url.port, path: url.pathname, agent }, resolve).on('error', reject);
      });
      res.resume();
      await new Promise((r) => res.once('end', r));
      assert.equal(res.headers['keep-alive'], `timeout=${serverKeepAliveMs / 1000}`);
      // The socket goes back to the pool on the next turn.
      await new Promise((r) => setImmediate(r));
      const idle = Object.values(agent.freeSockets).flat();
      assert.equal(idle.length, 1, 'one idle connection in the pool');
      assert.equal((idle[0] as unknown as { timeout?: number }).timeout, serverKeepAliveMs - 1000);
    } finally {
      agent.destroy();
    }
  });

  it('a GET sent on it right after the server closed it is sent again and answered', async () => {
    const client = new RestClient(loadKubeconfig(cluster.kubeconfig));
    try {
      assert.equal((await client.request<{ metadata: { name: string } }>('GET', '/api/v1/namespaces/default')).metadata.name, 'default');
      // The connection is idle in the pool; the server closes it at 65 s, the pool's own timer
      // (64 s) cannot run while the thread is blocked, and the request goes out before the close is read.
      blockThread(serverKeepAliveMs + 3_000);
      const got = await client.request<{ metadata: { name: string } }>('GET', '/api/v1/namespaces/kube-system');
      assert.equal(got.metadata.name, 'kube-system');
    } finally {
      client.close();
    }
  });
});

/**
 * The `kubernetes` Service's Endpoints and EndpointSlice, kept as
 * kube-apiserver's lease endpoint reconciler keeps them: the advertised
 * address of every live API server (kube-proxy reads the slice to route
 * 10.96.0.1:443). A server stopping with SIGTERM removes its address at once;
 * one killed with SIGKILL drops out when its record expires (15 s TTL,
 * reconciled every 10 s). Addresses from the documentation range (192.0.2.0/24)
 * are only published, never dialled: kubectl talks to 127.0.0.1.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, eventually, type Cluster } from './harness.js';

const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-kep-'));
let cluster: Cluster | undefined;
after(async () => { await cluster?.stop('SIGKILL'); rmSync(dataDir, { recursive: true, force: true }); });

async function start(address: string): Promise<{ port: string; kubectl(args: string[]): Promise<string> }> {
  cluster = await startCluster({ dataDir, extraArgs: ['--advertise-address', address] });
  const port = new URL(cluster.url).port;
  const c = cluster;
  return { port, kubectl: async (args) => (await c.kubectl(['--server', `https://127.0.0.1:${port}`, ...args])).stdout };
}

/** "ip,ip:port" of the Endpoints and the same of the slice, as kube-proxy and kubectl see them. */
async function published(k: { kubectl(args: string[]): Promise<string> }): Promise<[string, string]> {
  const ep = await k.kubectl(['get', 'endpoints', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.subsets[*].addresses[*].ip}:{.subsets[*].ports[0].port}']);
  const slice = await k.kubectl(['get', 'endpointslice', 'kubernetes', '-n', 'default', '-o',
    'jsonpath={.endpoints[*].addresses[0]}:{.ports[0].port} {.metadata.labels.kubernetes\\.io/service-name} {.addressType} {.endpoints[*].conditions.ready}']);
  return [ep, slice];
}

describe('the kubernetes Service\'s endpoints follow the live API servers (lease endpoint reconciler)', () => {
  it('publishes the advertised address in Endpoints and an EndpointSlice kube-proxy reads', async () => {
    const a = await start('192.0.2.10');
    assert.deepEqual(await published(a), [`192.0.2.10:${a.port}`, `192.0.2.10:${a.port} kubernetes IPv4 true`]);
    assert.equal(await a.kubectl(['get', 'endpoints', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.metadata.labels.endpointslice\\.kubernetes\\.io/skip-mirror}']), 'true');
  });

  it('a server stopped with SIGTERM takes its address with it; the next one publishes its own', async () => {
    assert.equal(await cluster!.stop('SIGTERM'), 0);
    const b = await start('192.0.2.11');
    assert.deepEqual(await published(b), [`192.0.2.11:${b.port}`, `192.0.2.11:${b.port} kubernetes IPv4 true`]);
  });

  it('a server killed with SIGKILL stays until its record expires, then drops out', async () => {
    await cluster!.stop('SIGKILL');
    const c = await start('192.0.2.12');
    const first = await published(c);
    assert.match(first[0], /^192\.0\.2\.11 192\.0\.2\.12:/, 'the killed server\'s record is still live');
    await eventually(async () => (await published(c))[0] === `192.0.2.12:${c.port}`, 60_000, 'the expired record dropped');
    assert.deepEqual(await published(c), [`192.0.2.12:${c.port}`, `192.0.2.12:${c.port} kubernetes IPv4 true`]);
  });
});

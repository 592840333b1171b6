/**
 * pods/proxy and services/proxy never reach the API server's own loopback
 * (issue #19, authorization gaps): an HTTP listener on this machine's
 * loopback stands for what runs there unauthenticated (a kubelet's metrics
 * port, a local etcd, another component's debug port), and the exact
 * requests of the finding must not reach it:
 *
 *  - an EndpointSlice naming 127.0.0.1 behind a selector-less Service, then
 *    `services/loop:80/proxy/` (upstream proxies only to Endpoints
 *    addresses, which validation keeps off loopback): 503, not the page;
 *    also when the endpoint names a pod on a node that is not simulated
 *    (only a simulated node's kubelet forwards such an address to its pod);
 *  - a pod whose status.podIPs is `0::1` or `::ffff:7f00:1` (the loopback,
 *    spelled so that a check of the text let it through), then
 *    `pods/NAME:PORT/proxy/`: upstream's 400 `address not allowed`;
 *  - an Endpoints object with the address `0::1`: refused as loopback (422).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startCluster, eventually, type Cluster } from './harness.js';
import { apiRequest } from './helpers.js';

describe('pods/proxy and services/proxy do not reach the loopback', () => {
  let cluster: Cluster;
  let listener: http.Server;
  let port = 0;
  let reached = 0;

  before(async () => {
    // Dual-stack on '::': 127.0.0.1 and ::1 both reach it.
    listener = http.createServer((_req, res) => { reached++; res.end('SECRET-ON-LOOPBACK'); });
    await new Promise<void>((resolve) => listener.listen(0, '::', resolve));
    port = (listener.address() as AddressInfo).port;
    cluster = await startCluster();
  });
  after(async () => {
    await cluster?.cleanup();
    listener?.close();
  });

  const post = (path: string, body: object) => apiRequest(cluster, path, { method: 'POST', body: JSON.stringify(body) });

  /** A selector-less Service with one EndpointSlice endpoint, then services/NAME:80/proxy/ once the server's caches hold both. */
  async function proxyThroughSlice(name: string, endpoint: object) {
    assert.equal((await post('/api/v1/namespaces/default/services', { metadata: { name }, spec: { ports: [{ port: 80, targetPort: port }] } })).status, 201);
    assert.equal((await post('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
      metadata: { name: `${name}-1`, labels: { 'kubernetes.io/service-name': name } }, addressType: 'IPv4',
      ports: [{ name: '', port, protocol: 'TCP' }], endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true }, ...endpoint }],
    })).status, 201);
    // Until then the answer is a 404 or names the bare Service; then the whole id.
    return eventually(async () => {
      const got = await apiRequest(cluster, `/api/v1/namespaces/default/services/${name}:80/proxy/`);
      return got.status === 200 || got.body.includes(`${name}:80`) ? got : undefined;
    }, 20_000, 'the EndpointSlice in the server\'s caches');
  }

  const endpoints: [string, string, object][] = [
    ['an EndpointSlice address of 127.0.0.1', 'loop', {}],
    ['a 127.0.0.1 endpoint that names a pod on a node that is not simulated', 'loop2', { nodeName: 'nowhere', targetRef: { kind: 'Pod', namespace: 'default', name: 'x' } }],
  ];
  for (const [what, name, endpoint] of endpoints) {
    it(`services/proxy to ${what}: 503, the listener is not reached`, async () => {
      const r = await proxyThroughSlice(name, endpoint);
      assert.equal(r.status, 503, r.body);
      assert.equal(r.json().message, `no endpoints available for service "${name}:80"`);
      assert.equal(reached, 0);
    });
  }

  for (const ip of ['0::1', '::ffff:7f00:1']) {
    it(`pods/proxy to a pod whose IP is ${ip}: 400 address not allowed, the listener is not reached`, async () => {
      const name = `loopy-${ip.replace(/[^0-9a-f]/g, '')}`;
      assert.equal((await post('/api/v1/namespaces/default/pods', {
        metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] },
      })).status, 201);
      const patched = await apiRequest(cluster, `/api/v1/namespaces/default/pods/${name}/status`, {
        method: 'PATCH', contentType: 'application/merge-patch+json', body: JSON.stringify({ status: { podIP: ip, podIPs: [{ ip }] } }),
      });
      assert.equal(patched.status, 200, patched.body);
      await eventually(async () => (await apiRequest(cluster, `/api/v1/namespaces/default/pods/${name}`)).json().status?.podIPs?.[0]?.ip === ip,
        20_000, 'the pod IP in the watch cache');
      const r = await apiRequest(cluster, `/api/v1/namespaces/default/pods/${name}:${port}/proxy/`);
      assert.equal(r.status, 400, r.body);
      assert.equal(r.json().message, 'address not allowed');
      assert.equal(reached, 0);
    });
  }

  it('an Endpoints address of 0::1 is refused as loopback', async () => {
    const r = await post('/api/v1/namespaces/default/endpoints', {
      metadata: { name: 'loop6' }, subsets: [{ addresses: [{ ip: '0::1' }], ports: [{ port, protocol: 'TCP' }] }],
    });
    assert.equal(r.status, 422, r.body);
    assert.match(r.json().message, /subsets\[0\]\.addresses\[0\]\.ip: Invalid value: "0::1": may not be in the loopback range/);
  });
});

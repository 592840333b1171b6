/**
 * kube-proxy's nftables mode (issue #21, Services) against real nftables:
 * a real `k8ts server` and `k8ts proxy` in a node network namespace, three
 * HTTP backends behind a bridge, a client namespace routed through the node
 * (proxy-netns.ts). Services are selector-less with EndpointSlices written
 * by the test, so the endpoints are the backends' real addresses; every
 * assertion is a real TCP connection from the client (or the node itself).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import { eventually } from './harness.js';
import { buildProxyRoom, backendAddress, clientAddress, nodeAddress, nodeName, type ProxyRoom } from './proxy-netns.js';

/** `ip` overrides the backend's address (endpoints no backend answers, for what the table holds). */
interface EP { backend: number; ip?: string; ready?: boolean; serving?: boolean; terminating?: boolean; node?: string }

const sliceYaml = (svc: string, eps: EP[]) => JSON.stringify({
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
  metadata: { name: `${svc}-1`, namespace: 'default', labels: { 'kubernetes.io/service-name': svc } },
  addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: eps.map((e) => ({
    addresses: [e.ip ?? backendAddress(e.backend)], nodeName: e.node ?? nodeName,
    conditions: { ready: e.ready ?? true, serving: e.serving ?? e.ready ?? true, terminating: e.terminating ?? false },
  })),
});

const serviceYaml = (name: string, spec: Partial<NonNullable<Service['spec']>>) => JSON.stringify({
  apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' },
  spec: { ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }], ...spec },
});

/** The backend names in probe results ("b2 10.78.0.1" → "b2"). */
const names = (results: string[]) => results.map((r) => r.split(' ')[0]);

describe('kube-proxy nftables mode in network namespaces: ClusterIP, NodePort, LoadBalancer, externalIPs, endpoints, affinity', () => {
  let room: ProxyRoom;
  const svc: Record<string, Service> = {};

  const apply = (doc: string) => room.kubectl(['apply', '-f', '-'], doc);
  const getService = async (name: string): Promise<Service> => JSON.parse(await room.kubectl(['get', 'svc', name, '-o', 'json']));
  /** Waits until the client reaches `host:port` and gets an answer from a backend. */
  const reachable = async (host: string, port: number, what: string) => {
    let last = '';
    try {
      return await eventually(async () => {
        [last] = await room.fromClient.get(host, port) as [string];
        return last.startsWith('b') ? last : undefined;
      }, 10_000, what);
    } catch (e) {
      // What the node held when it failed: the table and the proxy's last lines.
      throw new Error(`${(e as Error).message} (last: ${last})\n${await room.nft(['list', 'table', 'ip', 'kube-proxy'])}\n${room.proxyLog.slice(-5).join('\n')}`);
    }
  };

  before(async () => {
    room = await buildProxyRoom(3);
    try {
      const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName } };
      await apply(JSON.stringify(node));
      await room.kubectl(['patch', 'node', nodeName, '--subresource=status', '--type=merge', '-p',
        JSON.stringify({ status: { addresses: [{ type: 'InternalIP', address: nodeAddress }, { type: 'Hostname', address: nodeName }] } })]);
      await apply(serviceYaml('web', { type: 'ClusterIP' }));
      await apply(sliceYaml('web', [{ backend: 1 }]));
      await room.startProxy();
      svc.web = await getService('web');
    } catch (e) { await room.cleanup(); throw e; }
  });
  after(async () => { if (process.env.K8TS_PROXY_TEST_LOG) console.error(room?.proxyLog.join('\n')); await room?.cleanup(); });

  it('programs table ip kube-proxy with the service-ips and service-nodeports verdict maps', async () => {
    const table = await room.nft(['list', 'table', 'ip', 'kube-proxy']);
    assert.match(table, /map service-ips \{\s*type ipv4_addr \. inet_proto \. inet_service : verdict/);
    assert.match(table, /map service-nodeports \{\s*type inet_proto \. inet_service : verdict/);
    assert.match(table, new RegExp(`${svc.web.spec!.clusterIP!.replace(/\./g, '\\.')} \\. tcp \\. 80 : goto service-[A-Z2-7]{8}-default/web/tcp/http`));
    // One endpoint: a plain goto (up to 16, a numgen rule each; above, upstream's `numgen random mod N vmap`: rules.ts).
    assert.match(table, /goto endpoint-[A-Z2-7]{8}-default\/web\/tcp\/http__10\.78\.0\.11\/8080/);
    assert.match(table, /chain nat-prerouting \{\s*type nat hook prerouting priority dstnat; policy accept;\s*jump services/);
  });

  it('ClusterIP reaches the backend from the client (masqueraded: not from the pod network) and from the node itself', async () => {
    const [r] = await room.fromClient.get(svc.web.spec!.clusterIP!, 80);
    assert.equal(r, 'b1 10.78.0.1', 'client traffic to a cluster IP is DNATed to b1 and masqueraded to the node address on the bridge');
    const [n] = await room.fromNode.get(svc.web.spec!.clusterIP!, 80);
    assert.match(n!, /^b1 /);
  });

  it('a Service without endpoints is rejected at once (not dropped), and a cluster IP on an unknown port too', async () => {
    await apply(serviceYaml('empty', { type: 'NodePort' }));
    const empty = await getService('empty');
    await eventually(async () => (await room.nft(['list', 'map', 'ip', 'kube-proxy', 'no-endpoint-services'])).includes(empty.spec!.clusterIP!), 5000, 'no-endpoint element');
    const t0 = Date.now();
    assert.deepEqual(await room.fromClient.get(empty.spec!.clusterIP!, 80), ['ERR:ECONNREFUSED'], 'cluster IP from the client');
    assert.deepEqual(await room.fromClient.get(nodeAddress, empty.spec!.ports![0]!.nodePort!), ['ERR:ECONNREFUSED'], 'node port from the client');
    assert.deepEqual(await room.fromNode.get(empty.spec!.clusterIP!, 80), ['ERR:ECONNREFUSED'], 'cluster IP from the node');
    assert.deepEqual(await room.fromClient.get(svc.web.spec!.clusterIP!, 81), ['ERR:ECONNREFUSED'], 'cluster IP, unknown port');
    assert.ok(Date.now() - t0 < 1500, 'rejected, not left to time out');
  });

  it('NodePort answers on the node address (Cluster policy: the source is masqueraded)', async () => {
    await apply(serviceYaml('np', { type: 'NodePort' }));
    await apply(sliceYaml('np', [{ backend: 2 }]));
    const np = await getService('np');
    const r = await reachable(nodeAddress, np.spec!.ports![0]!.nodePort!, 'node port');
    assert.equal(r, 'b2 10.78.0.1');
  });

  it('externalTrafficPolicy Local keeps the client address; with no endpoint on this node the node port drops', async () => {
    await apply(serviceYaml('local', { type: 'NodePort', externalTrafficPolicy: 'Local' }));
    await apply(sliceYaml('local', [{ backend: 3 }]));
    const local = await getService('local');
    const r = await reachable(nodeAddress, local.spec!.ports![0]!.nodePort!, 'local node port');
    assert.equal(r, `b3 ${clientAddress}`, 'the backend sees the client address');
    await apply(sliceYaml('local', [{ backend: 3, node: 'node-2' }]));
    await eventually(async () => (await room.fromClient.get(nodeAddress, local.spec!.ports![0]!.nodePort!))[0] === 'ERR:TIMEOUT', 10_000, 'external traffic dropped');
    // The cluster IP still reaches the endpoint on the other node (internalTrafficPolicy Cluster).
    assert.match((await room.fromClient.get(local.spec!.clusterIP!, 80))[0]!, /^b3 /);
  });

  it('externalIPs reach the Service', async () => {
    await apply(serviceYaml('ext', { type: 'ClusterIP', externalIPs: ['10.78.8.8'] }));
    await apply(sliceYaml('ext', [{ backend: 1 }]));
    assert.match(await reachable('10.78.8.8', 80, 'external IP'), /^b1 /);
  });

  it('type LoadBalancer gets the node address as its ingress (EXTERNAL-IP) and answers on it', async () => {
    await apply(serviceYaml('lb', { type: 'LoadBalancer', ports: [{ name: 'http', port: 8081, targetPort: 8080, protocol: 'TCP' }] }));
    await apply(sliceYaml('lb', [{ backend: 2 }]));
    const lb = await eventually(async () => { const s = await getService('lb'); return s.status?.loadBalancer?.ingress?.length ? s : undefined; }, 10_000, 'LB ingress');
    assert.deepEqual(lb.status!.loadBalancer!.ingress, [{ ip: nodeAddress, ipMode: 'VIP' }]);
    const wide = await room.kubectl(['get', 'svc', 'lb', '--no-headers']);
    assert.match(wide, new RegExp(`LoadBalancer\\s+\\S+\\s+${nodeAddress.replace(/\./g, '\\.')}\\s`));
    assert.match(await reachable(nodeAddress, 8081, 'LB ingress address'), /^b2 /);
  });

  it('scaling the endpoints changes the backends within a second; a removed endpoint gets no new connections', async () => {
    await apply(serviceYaml('scale', { type: 'ClusterIP' }));
    await apply(sliceYaml('scale', [{ backend: 1 }]));
    const ip = (await getService('scale')).spec!.clusterIP!;
    await reachable(ip, 80, 'scale service');
    await apply(sliceYaml('scale', [{ backend: 1 }, { backend: 2 }, { backend: 3 }]));
    const t0 = Date.now();
    const seen = new Set<string>();
    while (seen.size < 3 && Date.now() - t0 < 5000) for (const n of names(await room.fromClient.get(ip, 80, 5))) seen.add(n!);
    const elapsed = Date.now() - t0;
    assert.deepEqual([...seen].sort(), ['b1', 'b2', 'b3']);
    assert.ok(elapsed < 1000, `all three backends answered ${elapsed} ms after the EndpointSlice update`);

    await apply(sliceYaml('scale', [{ backend: 1 }, { backend: 3 }]));
    const t1 = Date.now();
    await eventually(async () => !(await room.nft(['list', 'chain', 'ip', 'kube-proxy', (await serviceChainOf('scale'))])).includes('10.78.0.12'), 5000, 'b2 out of the service chain');
    assert.ok(Date.now() - t1 < 1000, 'b2 removed within a second');
    const after = names(await room.fromClient.get(ip, 80, 40));
    assert.ok(!after.includes('b2'), `b2 still got new connections: ${after.join(',')}`);
    assert.deepEqual([...new Set(after)].sort(), ['b1', 'b3']);
    // b2's endpoint chain was only flushed by that sync (no delete, so nft read no cache); the cleanup deletes it once the proxy is quiet.
    await eventually(async () => !(await room.nft(['list', 'chains', 'ip'])).includes('default/scale/tcp/http__10.78.0.12/'), 10_000, 'b2\'s endpoint chain deleted by the cleanup');

    // A deleted Service: its chains are flushed at once, its elements deleted by the same sync's second transaction, and then its chains.
    await room.kubectl(['delete', 'svc', 'scale']);
    await eventually(async () => {
      const table = await room.nft(['list', 'table', 'ip', 'kube-proxy']);
      return !table.includes('default/scale/') && !table.includes(`${ip} `) && !table.includes(`${ip},`) && !table.includes(`${ip} }`);
    }, 5000, 'the deleted Service\'s chains and elements gone');
    assert.equal((await room.fromClient.get(ip, 80))[0]!.startsWith('b'), false, 'no backend answers the deleted cluster IP');
  });

  it('a port of more than 16 endpoints picks with one numgen vmap (upstream\'s layout), fewer with a numgen rule each', async () => {
    const wide = Array.from({ length: 17 }, (_, i) => ({ backend: 1, ip: `10.78.9.${i + 1}` }));
    await apply(serviceYaml('wide', { type: 'ClusterIP' }));
    await apply(sliceYaml('wide', wide));
    await eventually(async () => /numgen random mod 17 vmap \{ 0 : goto endpoint-/.test(await room.nft(['list', 'table', 'ip', 'kube-proxy'])), 5000, 'a 17-entry vmap');
    await apply(sliceYaml('wide', wide.slice(0, 16)));
    await eventually(async () => {
      const chain = await room.nft(['list', 'chain', 'ip', 'kube-proxy', await serviceChainOf('wide')]);
      return /numgen random mod 16 0 goto endpoint-/.test(chain) && /numgen random mod 2 0 goto endpoint-/.test(chain) && !chain.includes('vmap');
    }, 5000, 'sixteen numgen rules');
    await room.kubectl(['delete', 'svc', 'wide']);
  });

  it('terminating endpoints serve when no endpoint is ready, and only then', async () => {
    await apply(serviceYaml('term', { type: 'ClusterIP' }));
    await apply(sliceYaml('term', [{ backend: 1, ready: false, serving: true, terminating: true }, { backend: 2, ready: false, serving: false, terminating: true }]));
    const ip = (await getService('term')).spec!.clusterIP!;
    assert.match(await reachable(ip, 80, 'terminating endpoint'), /^b1 /);
    assert.deepEqual([...new Set(names(await room.fromClient.get(ip, 80, 10)))], ['b1']);
    await apply(sliceYaml('term', [{ backend: 1, ready: false, serving: true, terminating: true }, { backend: 3 }]));
    await eventually(async () => names(await room.fromClient.get(ip, 80, 10)).every((n) => n === 'b3'), 5000, 'only the ready endpoint');
  });

  it('sessionAffinity ClientIP keeps a client on one endpoint, with the timeout in the affinity sets', async () => {
    await apply(serviceYaml('sticky', { type: 'ClusterIP', sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } } }));
    await apply(sliceYaml('sticky', [{ backend: 1 }, { backend: 2 }, { backend: 3 }]));
    const ip = (await getService('sticky')).spec!.clusterIP!;
    await reachable(ip, 80, 'sticky service');
    const got = names(await room.fromClient.get(ip, 80, 30));
    assert.equal(new Set(got).size, 1, `one backend for one client: ${got.join(',')}`);
    const table = await room.nft(['list', 'table', 'ip', 'kube-proxy']);
    assert.match(table, /set affinity-[A-Z2-7]{8}-default\/sticky\/tcp\/http__10\.78\.0\.1[123]\/8080 \{\s*type ipv4_addr\s*size \d+\s*flags dynamic,timeout\s*timeout 10m/);
    assert.match(table, new RegExp(`elements = \\{ ${clientAddress.replace(/\./g, '\\.')} (timeout|expires)`));
  });

  it('a Service change rewrites only that Service (partial sync); /metrics and /healthz answer', async () => {
    const before = room.proxyLog.length;
    await apply(serviceYaml('one-more', { type: 'ClusterIP' }));
    await eventually(async () => room.proxyLog.slice(before).some((l) => l.includes('"synced proxy rules"')), 5000, 'a sync');
    const rec = JSON.parse(room.proxyLog.slice(before).find((l) => l.includes('"synced proxy rules"'))!);
    assert.equal(rec.full, false);
    assert.equal(rec.services, 1);
    const metrics = await room.onNode(['curl', '-s', 'http://127.0.0.1:10249/metrics']);
    assert.match(metrics, /kubeproxy_sync_proxy_rules_duration_seconds_count \d+/);
    const healthz = await room.onNode(['curl', '-s', 'http://127.0.0.1:10256/healthz']);
    assert.match(healthz, /"lastUpdated"/);
  });

  it('SIGTERM leaves the rules in place: the Service keeps working while the proxy is down, and a restart adopts them', async () => {
    assert.equal(await room.stopProxy(), 0);
    assert.match((await room.fromClient.get(svc.web.spec!.clusterIP!, 80))[0]!, /^b1 /);
    await room.kubectl(['delete', 'svc', 'ext']);
    await room.startProxy();
    await eventually(async () => !(await room.nft(['list', 'table', 'ip', 'kube-proxy'])).includes('default/ext/'), 5000, 'stale chains of a Service deleted while the proxy was down');
    assert.match((await room.fromClient.get(svc.web.spec!.clusterIP!, 80))[0]!, /^b1 /);
  });

  const serviceChainOf = async (name: string) => {
    const table = await room.nft(['list', 'table', 'ip', 'kube-proxy']);
    const m = new RegExp(`chain (service-[A-Z2-7]{8}-default/${name}/tcp/http) \\{`).exec(table);
    assert.ok(m, `no service chain for ${name}`);
    return m[1]!;
  };
});

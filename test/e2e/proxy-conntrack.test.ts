/**
 * UDP conntrack cleanup of kube-proxy (issue #21; upstream
 * pkg/proxy/conntrack/cleanup.go) against the real kernel: the room of
 * proxy-netns.ts (a real `k8ts server` and `k8ts proxy` in a node namespace,
 * backends behind its bridge, a client namespace routed through it), the
 * real `conntrack` tool run by the proxy in the node namespace. The client
 * sends every datagram from one source port, so the node keeps one conntrack
 * flow, whose NAT decision only a deletion of its entry can change.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eventually } from './harness.js';
import { buildProxyRoom, backendAddress, nodeAddress, nodeName, type ProxyRoom } from './proxy-netns.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));

const udpService = (name: string, clusterIP?: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' },
  spec: { type: 'NodePort', ...(clusterIP ? { clusterIP } : {}), ports: [{ name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' }] },
});

const udpSlice = (svc: string, backends: number[]) => JSON.stringify({
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
  metadata: { name: `${svc}-1`, namespace: 'default', labels: { 'kubernetes.io/service-name': svc } },
  addressType: 'IPv4', ports: [{ name: 'dns', port: 8080, protocol: 'UDP' }],
  endpoints: backends.map((b) => ({ addresses: [backendAddress(b)], nodeName, conditions: { ready: true, serving: true, terminating: false } })),
});

describe('kube-proxy deletes stale UDP conntrack entries in the node namespace', () => {
  let room: ProxyRoom;

  const apply = (doc: string) => room.kubectl(['apply', '-f', '-'], doc);
  /** One datagram from the client's `sourcePort` to host:port; the answer (`b2 10.78.0.1`) or `ERR:...`. */
  const send = async (host: string, port: number, sourcePort: number) => (await run('nsenter',
    [`--net=/run/netns/${room.client}`, process.execPath, join(here, 'proxy-udp-probe.js'), host, String(port), String(sourcePort)])).stdout.trim();
  /** The node namespace's UDP conntrack entries to `ip`. */
  const entries = async (ip: string) => (await room.onNode(['conntrack', '-L', '-p', 'udp', '--orig-dst', ip]).catch(() => '')).trim();
  /** Waits for the proxy's log line of a conntrack cleanup for `service` written after line `from`. */
  const cleaned = (service: string, from: number) => eventually(async () => room.proxyLog.slice(from)
    .map((l) => JSON.parse(l) as { msg?: string; service?: string; deleted?: number })
    .find((r) => r.msg === 'deleted stale UDP conntrack entries' && r.service === `default/${service}`), 15_000, `conntrack cleanup of ${service}`);

  before(async () => {
    room = await buildProxyRoom(2);
    try {
      await apply(JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName } }));
      await room.kubectl(['patch', 'node', nodeName, '--subresource=status', '--type=merge', '-p',
        JSON.stringify({ status: { addresses: [{ type: 'InternalIP', address: nodeAddress }] } })]);
      await room.startProxy();
    } catch (e) { await room.cleanup(); throw e; }
  });
  after(async () => { if (process.env.K8TS_PROXY_TEST_LOG) console.error(room?.proxyLog.join('\n')); await room?.cleanup(); });

  it('an endpoint switched from b1 to b2: the flow\'s next datagram (same source port) reaches b2, by cluster IP and node port', async () => {
    await apply(udpService('echo'));
    await apply(udpSlice('echo', [1]));
    const svc = JSON.parse(await room.kubectl(['get', 'svc', 'echo', '-o', 'json']));
    const ip: string = svc.spec.clusterIP;
    const nodePort: number = svc.spec.ports[0].nodePort;
    await eventually(async () => (await send(ip, 53, 40001)).startsWith('b1 ') || undefined, 10_000, 'b1 by cluster IP');
    await eventually(async () => (await send(nodeAddress, nodePort, 40002)).startsWith('b1 ') || undefined, 10_000, 'b1 by node port');
    assert.match(await entries(ip), new RegExp(`dst=${ip} sport=40001 dport=53 src=${backendAddress(1).replace(/\./g, '\\.')} `), 'the flow is DNATed to b1');
    // b1 keeps answering: only the deletion of the flow's entry can move it to b2.
    const from = room.proxyLog.length;
    await apply(udpSlice('echo', [2]));
    const rec = await cleaned('echo', from);
    assert.ok(rec.deleted! >= 2, `the cluster IP's and the node port's entries to b1 deleted: ${JSON.stringify(rec)}`);
    assert.match(await send(ip, 53, 40001), /^b2 /, 'the next datagram of the flow by cluster IP');
    assert.match(await send(nodeAddress, nodePort, 40002), /^b2 /, 'the next datagram of the flow by node port');
  });

  it('a Service\'s first endpoint: a flow blackholed before the Service existed reaches it', async () => {
    // A cluster IP in the range's lower band (upstream's static allocations), which dynamic allocation here picks at random.
    const ip = '10.96.0.53';
    // No rule for it yet: the node routes it to its default route (a dead end), and conntrack records an un-NATed flow.
    assert.equal(await send(ip, 53, 40003), 'ERR:TIMEOUT');
    assert.match(await entries(ip), new RegExp(`dst=${ip.replace(/\./g, '\\.')} sport=40003 dport=53 \\[UNREPLIED\\] src=${ip.replace(/\./g, '\\.')} `), 'an un-NATed entry');
    await apply(udpService('late', ip));
    await eventually(async () => (await room.nft(['list', 'map', 'ip', 'kube-proxy', 'no-endpoint-services'])).includes(ip), 10_000, 'no-endpoint element');
    // The Service without endpoints rejects the flow (ct state new: it never had an answer) but cannot re-NAT it.
    assert.doesNotMatch(await send(ip, 53, 40003), /^b/);
    const from = room.proxyLog.length;
    await apply(udpSlice('late', [2]));
    const rec = await cleaned('late', from);
    assert.ok(rec.deleted! >= 1, `the un-NATed entry deleted: ${JSON.stringify(rec)}`);
    assert.match(await send(ip, 53, 40003), /^b2 /, 'the next datagram of the flow');
  });
});

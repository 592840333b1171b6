/**
 * NetworkPolicy enforcement (issue #21) on real nftables: upstream's netpol
 * e2e approach, every pod of the 3×3 grid (namespaces x, y, z × pods a, b, c)
 * probes every pod with a real TCP or UDP exchange, and the observed truth
 * table must equal the expected one (netpol-netns.ts builds the room; the
 * agent runs inside the real `k8ts proxy`, reading the real `k8ts server`).
 * A pod reaching itself goes through its own loopback, never through the
 * node, so the diagonal is always reachable (as in upstream's tables).
 */
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { eventually } from './harness.js';
import { buildNetpolRoom, gridPod, podAddress, type NetpolRoom } from './netpol-netns.js';
import { matrix, ns, pod, policy, type Matrix } from './netpol-matrix.js';


describe('NetworkPolicy: the 3×3 truth table on real nftables', () => {
  let room: NetpolRoom;

  let m: Matrix;
  const expectTruthTable = (...a: Parameters<Matrix['expectTruthTable']>) => m.expectTruthTable(...a);
  const apply = (...p: NetworkPolicy[]) => m.apply(...p);

  before(async () => { room = await buildNetpolRoom(); m = matrix(room); });
  after(async () => { if (process.env.K8TS_NETPOL_TEST_LOG) console.error(room?.proxyLog.join('\n')); await room?.cleanup(); });
  afterEach(async () => {
    await room.kubectl(['delete', 'networkpolicy', '--all', '-A', '--wait=false']);
  });

  it('without policies every pod reaches every pod (TCP 80 and UDP 80)', async () => {
    await expectTruthTable('tcp', 80, () => true, 'no policy');
    await expectTruthTable('udp', 80, () => true, 'no policy');
    const table = await room.nft(['list', 'table', 'inet', 'k8ts-netpol']);
    assert.match(table, /chain ingress-forward \{\s*type filter hook forward priority filter \+ 10; policy accept;\s*ct state established,related accept/);
  });

  it('default deny ingress in x isolates x only', async () => {
    await apply(policy('x', 'deny-all', { podSelector: {}, policyTypes: ['Ingress'] }));
    await expectTruthTable('tcp', 80, (_f, to) => ns(to) !== 'x', 'default deny ingress');
    await expectTruthTable('udp', 81, (_f, to) => ns(to) !== 'x', 'default deny ingress');
  });

  it('allow from the same namespace (podSelector {})', async () => {
    await apply(policy('x', 'allow-same-ns', { podSelector: {}, ingress: [{ from: [{ podSelector: {} }] }] }));
    await expectTruthTable('tcp', 80, (f, to) => ns(to) !== 'x' || ns(f) === 'x', 'same namespace');
  });

  it('namespaceSelector: x/a admits only namespace y (policies are per pod: x/b, x/c stay open)', async () => {
    await apply(policy('x', 'from-y', {
      podSelector: { matchLabels: { pod: 'a' } },
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } } }] }],
    }));
    await expectTruthTable('tcp', 80, (f, to) => to !== 'x/a' || ns(f) === 'y', 'namespaceSelector');
  });

  it('podSelector AND namespaceSelector in one peer: only y/b; as two peers: all of y and x/b', async () => {
    await apply(policy('x', 'and', {
      podSelector: {},
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } }, podSelector: { matchLabels: { pod: 'b' } } }] }],
    }));
    await expectTruthTable('tcp', 80, (f, to) => ns(to) !== 'x' || f === 'y/b', 'podSelector AND namespaceSelector');
    await apply(policy('x', 'and', {
      podSelector: {},
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } } }, { podSelector: { matchLabels: { pod: 'b' } } }] }],
    }));
    await expectTruthTable('tcp', 80, (f, to) => ns(to) !== 'x' || ns(f) === 'y' || f === 'x/b', 'podSelector OR namespaceSelector');
  });

  it('ipBlock with except: the pod network admitted except y/a', async () => {
    await apply(policy('x', 'cidr', {
      podSelector: {},
      ingress: [{ from: [{ ipBlock: { cidr: '10.79.0.0/16', except: [`${podAddress('y/a')}/32`] } }] }],
    }));
    await expectTruthTable('tcp', 80, (f, to) => ns(to) !== 'x' || f !== 'y/a', 'ipBlock except');
  });

  it('egress deny with DNS allowed: x reaches UDP 53 only (and ingress to x is untouched)', async () => {
    await apply(policy('x', 'egress-dns-only', {
      podSelector: {}, policyTypes: ['Egress'],
      egress: [{ ports: [{ protocol: 'UDP', port: 53 }] }],
    }));
    await expectTruthTable('tcp', 80, (f) => ns(f) !== 'x', 'egress deny (TCP 80)');
    await expectTruthTable('udp', 80, (f) => ns(f) !== 'x', 'egress deny (UDP 80)');
    await expectTruthTable('udp', 53, () => true, 'egress DNS allowed (UDP 53)');
  });

  it('named port: ingress to x on serve-81-tcp only, resolved per target pod', async () => {
    await apply(policy('x', 'named', { podSelector: {}, ingress: [{ ports: [{ port: 'serve-81-tcp', protocol: 'TCP' }] }] }));
    await expectTruthTable('tcp', 81, () => true, 'named port 81 allowed');
    await expectTruthTable('tcp', 80, (_f, to) => ns(to) !== 'x', 'port 80 denied');
    await expectTruthTable('udp', 81, (_f, to) => ns(to) !== 'x', 'UDP 81 denied (the name is TCP)');
  });

  it('egress named port resolved on the destination pod', async () => {
    await apply(policy('x', 'egress-named', { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: [{ port: 'serve-80-udp', protocol: 'UDP' }] }] }));
    await expectTruthTable('udp', 80, () => true, 'egress named UDP 80 allowed');
    await expectTruthTable('tcp', 80, (f) => ns(f) !== 'x', 'egress TCP 80 denied');
  });

  it('endPort: a port range 81..90 admits 81, not 80', async () => {
    await apply(policy('x', 'range', { podSelector: {}, ingress: [{ ports: [{ protocol: 'TCP', port: 81, endPort: 90 }] }] }));
    await expectTruthTable('tcp', 81, () => true, 'range admits 81');
    await expectTruthTable('tcp', 80, (_f, to) => ns(to) !== 'x', 'range refuses 80');
  });

  it('policies are additive, and an update and a delete take effect within seconds', async () => {
    await apply(policy('x', 'from-y', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } } }] }] }));
    await expectTruthTable('tcp', 80, (f, to) => ns(to) !== 'x' || ns(f) === 'y', 'from y');
    await apply(policy('x', 'from-z-pod-a', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'z' } }, podSelector: { matchLabels: { pod: 'a' } } }] }] }));
    await expectTruthTable('tcp', 80, (f, to) => ns(to) !== 'x' || ns(f) === 'y' || f === 'z/a', 'from y plus z/a (additive)');
    await apply(policy('x', 'from-y', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'z' } } }] }] }));
    const updated = await expectTruthTable('tcp', 80, (f, to) => ns(to) !== 'x' || ns(f) === 'z', 'updated to from z', 5000);
    await room.kubectl(['delete', 'networkpolicy', '-n', 'x', 'from-y', 'from-z-pod-a']);
    const deleted = await expectTruthTable('tcp', 80, () => true, 'deleted', 5000);
    assert.ok(updated < 5000 && deleted < 5000, `update ${updated} ms, delete ${deleted} ms`);
  });

  it('a pod label change moves it in and out of a peer selection', async () => {
    await apply(policy('x', 'from-role-client', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: {}, podSelector: { matchLabels: { role: 'client' } } }] }] }));
    await expectTruthTable('tcp', 80, (_f, to) => ns(to) !== 'x', 'nobody is a client');
    await room.kubectl(['label', 'pod', '-n', 'z', pod('z/c'), 'role=client']);
    await expectTruthTable('tcp', 80, (f, to) => ns(to) !== 'x' || f === 'z/c', 'z/c is a client');
    await room.kubectl(['label', 'pod', '-n', 'z', pod('z/c'), 'role-']);
    await expectTruthTable('tcp', 80, (_f, to) => ns(to) !== 'x', 'z/c is no client any more');
  });

  it('changing one policy among several rewrites only that policy: the others\' chains keep their kernel handles', async () => {
    await apply(policy('x', 'from-y', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } } }] }] }),
      policy('z', 'deny-all', { podSelector: {}, policyTypes: ['Ingress'] }));
    await expectTruthTable('tcp', 80, (f, to) => (ns(to) !== 'x' || ns(f) === 'y') && ns(to) !== 'z', 'from y into x, nothing into z');
    const handles = async () => new Map([...(await room.nft(['-a', 'list', 'table', 'inet', 'k8ts-netpol'])).matchAll(/^\s*chain (\S+) \{ # handle (\d+)$/gm)].map((m) => [m[1]!, m[2]!]));
    const before = await handles();
    await apply(policy('x', 'from-y', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } }, podSelector: { matchLabels: { pod: 'a' } } }] }] }));
    await expectTruthTable('tcp', 80, (f, to) => (ns(to) !== 'x' || f === 'y/a') && ns(to) !== 'z', 'from y/a only into x');
    const after = await handles();
    const zChain = [...before.keys()].find((c) => c.endsWith('-z/deny-all'));
    assert.ok(zChain, `z/deny-all has a chain: ${[...before.keys()].join(' ')}`);
    for (const c of [zChain, 'ingress-forward', 'egress-forward', 'egress-input']) assert.equal(after.get(c), before.get(c), `${c} kept its handle`);
    const xChain = [...before.keys()].find((c) => c.endsWith('-x/from-y'))!;
    assert.equal(after.get(xChain), before.get(xChain), 'the changed policy\'s chain is flushed and refilled, not replaced');
    assert.ok(room.proxyLog.some((l) => l.includes('"synced network policy rules"') && l.includes('"full":false')), 'an incremental sync ran');
  });

  it('a deleted pod leaves the named-port set (its port is no longer allowed), and comes back with it', async () => {
    await apply(policy('x', 'egress-named', { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: [{ port: 'serve-80-udp', protocol: 'UDP' }] }] }));
    await expectTruthTable('udp', 80, () => true, 'egress named UDP 80 allowed');
    await room.kubectl(['delete', 'pod', '-n', 'z', 'a', '--grace-period=0', '--force']);
    await expectTruthTable('udp', 80, (f, to) => ns(f) !== 'x' || to !== 'z/a', 'z/a has no named port any more');
    await room.kubectl(['apply', '-f', '-'], JSON.stringify(gridPod('z/a')));
    await room.kubectl(['patch', 'pod', 'a', '-n', 'z', '--subresource=status', '--type=merge', '-p',
      JSON.stringify({ status: { phase: 'Running', podIP: podAddress('z/a'), podIPs: [{ ip: podAddress('z/a') }] } })]);
    await expectTruthTable('udp', 80, () => true, 'z/a back with its named port');
  });

  it('traffic to a Service is policed after kube-proxy\'s DNAT, against the backend pod', async () => {
    await room.kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [
      { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'x', name: 'web' }, spec: { ports: [{ name: 'http', port: 8080, targetPort: 80, protocol: 'TCP' }] } },
      { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { namespace: 'x', name: 'web-1', labels: { 'kubernetes.io/service-name': 'web' } },
        addressType: 'IPv4', ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
        endpoints: [{ addresses: [podAddress('x/a')], conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: 'x', name: 'a' } }] },
    ] }));
    const clusterIP = (await room.kubectl(['get', 'svc', '-n', 'x', 'web', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
    const through = (from: string) => room.pods.get(from)!.send(`probe tcp ${clusterIP} 8080`);
    await eventually(async () => (await through('z/b')) && (await through('y/b')), 10_000, 'the Service answers without policies');
    await apply(policy('x', 'a-from-y', { podSelector: { matchLabels: { pod: 'a' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } } }] }] }));
    await eventually(async () => !(await through('z/b')), 10_000, 'z/b refused through the Service');
    assert.equal(await through('y/b'), true, 'y/b still reaches the backend through the Service');
    assert.equal(await through('x/c'), false, 'x/c (not in y) refused through the Service');
  });

  it('an established connection keeps working after a deny-all; new ones are refused', async () => {
    await expectTruthTable('tcp', 80, () => true, 'the previous test\'s policies gone');
    const client = room.pods.get('y/a')!;
    assert.equal(await client.send(`hold ${podAddress('x/a')} 80`), true, 'connection opened');
    assert.equal(await client.send('ping'), true);
    await apply(policy('x', 'deny-all', { podSelector: {}, policyTypes: ['Ingress'] }));
    await expectTruthTable('tcp', 80, (_f, to) => ns(to) !== 'x', 'deny all');
    assert.equal(await client.send('ping'), true, 'the established connection still carries data');
  });
});

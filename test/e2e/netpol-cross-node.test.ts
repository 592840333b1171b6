/**
 * NetworkPolicy across two nodes (issue #21): the c pods of x, y and z live
 * on node-2, with its own `k8ts proxy` (and agent) and bridge, routed to
 * node-1 (host-gw). Each node polices only its own pods, with peer sets
 * drawn from the whole cluster, so the truth tables must hold across the link.
 */
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { buildNetpolRoom, type NetpolRoom } from './netpol-netns.js';
import { matrix, ns, policy, type Matrix } from './netpol-matrix.js';

describe('NetworkPolicy across two nodes: the 3×3 truth table with the c pods on node-2', () => {
  let room: NetpolRoom;
  let m: Matrix;

  before(async () => { room = await buildNetpolRoom(true); m = matrix(room, true); });
  after(async () => { if (process.env.K8TS_NETPOL_TEST_LOG) console.error(room?.proxyLog.join('\n')); await room?.cleanup(); });
  afterEach(async () => { await room.kubectl(['delete', 'networkpolicy', '--all', '-A', '--wait=false']); });

  it('without policies every pod reaches every pod across the nodes', async () => {
    await m.expectTruthTable('tcp', 80, () => true, 'no policy');
  });

  it('default deny ingress in x holds on both nodes (x/c is isolated by node-2)', async () => {
    await m.apply(policy('x', 'deny-all', { podSelector: {}, policyTypes: ['Ingress'] }));
    await m.expectTruthTable('tcp', 80, (_f, to) => ns(to) !== 'x', 'default deny ingress');
    assert.match(await room.nft(['list', 'map', 'inet', 'k8ts-netpol', 'ingress-pods'], 2), /10\.79\.2\.13 : jump ingress-pods-/, 'node-2 maps its own x/c');
  });

  it('podSelector AND namespaceSelector: only y/b (node-1) and y/c (node-2) reach x', async () => {
    await m.apply(policy('x', 'and', {
      podSelector: {},
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } }, podSelector: { matchExpressions: [{ key: 'pod', operator: 'In', values: ['b', 'c'] }] } }] }],
    }));
    await m.expectTruthTable('tcp', 80, (f, to) => ns(to) !== 'x' || f === 'y/b' || f === 'y/c', 'podSelector AND namespaceSelector');
  });

  it('egress deny in x with DNS allowed holds for x/c on node-2 too', async () => {
    await m.apply(policy('x', 'egress-dns-only', { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: [{ protocol: 'UDP', port: 53 }] }] }));
    await m.expectTruthTable('udp', 80, (f) => ns(f) !== 'x', 'egress deny (UDP 80)');
    await m.expectTruthTable('udp', 53, () => true, 'egress DNS allowed (UDP 53)');
  });
});

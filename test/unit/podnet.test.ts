/** The pod network's pure rules (src/kubelet/network/): backend choice per peer, the masquerade ruleset, CIDR arithmetic, host-local's stale reservations. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node } from 'kubernetes-types/core/v1.js';
import { planPeerRoutes, backendDataAnnotation, type PodNetworkBackend } from '../../src/kubelet/network/backend.js';
import { masqueradeRuleset } from '../../src/kubelet/network/masquerade.js';
import { gatewayOf, parseIPv4CIDR, vtepAddressOf } from '../../src/kubelet/network/cidr.js';
import { configuredSubnet, removeStaleAllocations, writeCNIConfig } from '../../src/kubelet/network/cni-config.js';

const mac = (i: number) => `0a:00:00:00:00:0${i}`;
const node = (name: string, podCIDR: string | undefined, ip: string | undefined, vtep?: string): Node => ({
  metadata: { name, annotations: vtep ? { [backendDataAnnotation]: JSON.stringify({ VNI: 1, VtepMAC: vtep }) } : {} },
  spec: podCIDR ? { podCIDR, podCIDRs: [podCIDR] } : {},
  status: ip ? { addresses: [{ type: 'InternalIP', address: ip }] } : {},
});
const nodes = [
  node('a', '10.244.0.0/24', '10.77.0.1', mac(1)),
  node('b', '10.244.1.0/24', '10.77.0.2', mac(2)),
  node('c', '10.244.2.0/24', '10.78.0.2', mac(3)),
  node('d', undefined, '10.77.0.4'),
  node('e', '10.244.4.0/24', '10.78.0.5'),
];
const direct = (ip: string) => ip.startsWith('10.77.0.');
const summary = (b: PodNetworkBackend) => {
  const p = planPeerRoutes('a', nodes, b, direct);
  return { routes: p.routes.map((r) => `${r.node} ${r.kind}`), waiting: p.waiting.map((w) => w.node) };
};

describe('planPeerRoutes: which way this node reaches each peer\'s pods', () => {
  const cases: [PodNetworkBackend, string[], string[]][] = [
    // host-gw: only peers on a directly connected subnet; the others wait (no route is better than a wrong one).
    ['host-gw', ['b host-gw'], ['c', 'e']],
    // vxlan: every peer through the overlay; one without a published VTEP MAC waits.
    ['vxlan', ['b vxlan', 'c vxlan'], ['e']],
    // auto: host-gw where direct, VXLAN elsewhere (flannel's DirectRouting).
    ['auto', ['b host-gw', 'c vxlan'], ['e']],
  ];
  for (const [backend, routes, waiting] of cases) {
    it(`${backend}: routes ${routes.join(', ')}; waiting ${waiting.join(', ')}; itself and a node without podCIDR skipped`, () => {
      assert.deepEqual(summary(backend), { routes, waiting });
    });
  }
  it('a VXLAN route goes onlink via the peer\'s VTEP address (its podCIDR\'s network address) with its MAC and InternalIP', () => {
    const [r] = planPeerRoutes('a', nodes, 'vxlan', direct).routes.filter((x) => x.node === 'c');
    assert.deepEqual(r, { kind: 'vxlan', node: 'c', dst: '10.244.2.0/24', vtep: '10.244.2.0', mac: mac(3), nodeIP: '10.78.0.2' });
  });
});

describe('masquerade ruleset (table ip k8ts-podnet)', () => {
  it('masquerades this node\'s pods to anything outside every podCIDR, replacing only its own table', () => {
    const r = masqueradeRuleset('10.244.1.0/24', ['10.244.2.0/24', '10.244.0.0/24', '10.244.1.0/24']);
    assert.match(r, /^add table ip k8ts-podnet\ndelete table ip k8ts-podnet\n/);
    assert.match(r, /elements = \{ 10\.244\.0\.0\/24, 10\.244\.1\.0\/24, 10\.244\.2\.0\/24 \}/);
    assert.match(r, /ip saddr 10\.244\.1\.0\/24 ip daddr != @pod-cidrs masquerade/);
    assert.doesNotMatch(r, /flush ruleset/);
  });
});

describe('CIDR arithmetic and the CNI network files', () => {
  it('gateway is the first host, VTEP the network address; host bits are masked', () => {
    const c = parseIPv4CIDR('10.244.4.7/24')!;
    assert.equal(gatewayOf(c), '10.244.4.1');
    assert.equal(vtepAddressOf(c), '10.244.4.0');
    assert.equal(parseIPv4CIDR('10.244.4.0/33'), undefined);
    assert.equal(parseIPv4CIDR('fd00::/64'), undefined);
  });
  it('a new podCIDR releases host-local\'s reservations outside it and its cursor', () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-podnet-unit-'));
    try {
      mkdirSync(join(dir, 'ipam', 'k8ts'), { recursive: true });
      for (const f of ['10.244.1.2', '10.244.1.3', '10.244.4.2', 'last_reserved_ip.0', 'lock']) writeFileSync(join(dir, 'ipam', 'k8ts', f), 'x');
      const released = removeStaleAllocations(join(dir, 'ipam'), parseIPv4CIDR('10.244.4.0/24')!);
      assert.deepEqual(released.sort(), ['10.244.1.2', '10.244.1.3']);
      assert.deepEqual(readdirSync(join(dir, 'ipam', 'k8ts')).sort(), ['10.244.4.2', 'lock']);
      assert.equal(writeCNIConfig(join(dir, 'cni'), '10.244.4.0/24', join(dir, 'ipam')), true);
      assert.equal(writeCNIConfig(join(dir, 'cni'), '10.244.4.0/24', join(dir, 'ipam')), false, 'unchanged: not rewritten');
      assert.equal(configuredSubnet(join(dir, 'cni')), '10.244.4.0/24');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

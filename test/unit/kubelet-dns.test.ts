/**
 * The pod's resolv.conf (src/kubelet/dns.ts), table-driven after upstream's
 * pkg/kubelet/network/dns/dns_test.go: the policy's base, cluster searches,
 * dnsConfig appended and merged, the limits.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parseResolvConf, podDNSConfig, resolvConfText, type KubeletDNSOptions } from '../../src/kubelet/dns.js';

const hostResolvConf = 'nameserver 192.0.2.53\nnameserver 192.0.2.54 # backup\nsearch corp.example. lab.example .\noptions timeout:2 attempts:3\n';
const withCluster: KubeletDNSOptions = { clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', hostResolvConf, nodeIPs: ['192.0.2.10'] };
const noCluster: KubeletDNSOptions = { ...withCluster, clusterDNS: [] };

function pod(spec: Partial<NonNullable<Pod['spec']>> = {}): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', namespace: 'shop', uid: 'u-1' }, spec: { containers: [{ name: 'c' }], ...spec } };
}

describe('parseResolvConf', () => {
  it('reads nameservers, the last search line without trailing dots or ".", and options; comments are ignored', () => {
    assert.deepEqual(parseResolvConf(hostResolvConf), {
      servers: ['192.0.2.53', '192.0.2.54'], searches: ['corp.example', 'lab.example'], options: ['timeout:2', 'attempts:3'],
    });
    assert.deepEqual(parseResolvConf('; all comments\n# nothing\n'), { servers: [], searches: [], options: [] });
  });
});

describe('podDNSConfig', () => {
  const cases: Array<{ name: string; pod: Pod; opts: KubeletDNSOptions; want: { servers: string[]; searches: string[]; options: string[] }; warnings?: string[] }> = [
    {
      name: 'ClusterFirst (the default): cluster servers, namespace searches then the host\'s, ndots:5',
      pod: pod(), opts: withCluster,
      want: { servers: ['10.96.0.10'], searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'lab.example'], options: ['ndots:5'] },
    },
    {
      name: 'ClusterFirst on the host network is Default',
      pod: pod({ hostNetwork: true }), opts: withCluster,
      want: { servers: ['192.0.2.53', '192.0.2.54'], searches: ['corp.example', 'lab.example'], options: ['timeout:2', 'attempts:3'] },
    },
    {
      name: 'ClusterFirstWithHostNet on the host network is cluster DNS',
      pod: pod({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }), opts: withCluster,
      want: { servers: ['10.96.0.10'], searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'lab.example'], options: ['ndots:5'] },
    },
    {
      name: 'ClusterFirst without --cluster-dns falls back to Default, with a warning',
      pod: pod(), opts: noCluster,
      want: { servers: ['192.0.2.53', '192.0.2.54'], searches: ['corp.example', 'lab.example'], options: ['timeout:2', 'attempts:3'] },
      warnings: ['MissingClusterDNS: pod: "web-0_shop(u-1)". kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.'],
    },
    {
      name: 'Default with --resolv-conf "": loopback and search "."',
      pod: pod({ dnsPolicy: 'Default' }), opts: { ...withCluster, hostResolvConf: undefined },
      want: { servers: ['127.0.0.1'], searches: ['.'], options: [] },
    },
    {
      name: 'None takes dnsConfig alone',
      pod: pod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.2.3.4'], searches: ['ns1.svc.cluster-domain.example', 'my.dns.search.suffix'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] } }),
      opts: withCluster,
      want: { servers: ['1.2.3.4'], searches: ['ns1.svc.cluster-domain.example', 'my.dns.search.suffix'], options: ['ndots:2', 'edns0'] },
    },
    {
      name: 'dnsConfig is appended to ClusterFirst; duplicates dropped; options merged by name, the pod\'s value winning',
      pod: pod({ dnsConfig: { nameservers: ['10.96.0.10', '8.8.8.8'], searches: ['cluster.local', 'extra.example'], options: [{ name: 'ndots', value: '1' }, { name: 'single-request' }] } }),
      opts: withCluster,
      want: { servers: ['10.96.0.10', '8.8.8.8'], searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'lab.example', 'extra.example'], options: ['ndots:1', 'single-request'] },
    },
    {
      name: 'more than three nameservers are cut, and said so',
      pod: pod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1', '2.2.2.2', '3.3.3.3', '4.4.4.4'] } }), opts: withCluster,
      want: { servers: ['1.1.1.1', '2.2.2.2', '3.3.3.3'], searches: [], options: [] },
      warnings: ['DNSConfigForming: Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 1.1.1.1 2.2.2.2 3.3.3.3'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { config, warnings } = podDNSConfig(c.pod, c.opts);
      assert.deepEqual(config, c.want);
      assert.deepEqual(warnings.map((w) => `${w.reason}: ${w.message}`), c.warnings ?? []);
    });
  }

  it('search paths past 32, longer than 253 characters, or past 2,048 characters in all are cut, and said so', () => {
    const many = Array.from({ length: 40 }, (_, i) => `s${i}.example`);
    const r = podDNSConfig(pod({ dnsPolicy: 'None', dnsConfig: { searches: many } }), withCluster);
    assert.equal(r.config.searches.length, 32);
    assert.match(r.warnings[0]!.message, /^Search Line limits were exceeded, some search paths have been omitted, the applied search line is: s0\.example s1\.example/);
    const long = 'a'.repeat(254);
    assert.deepEqual(podDNSConfig(pod({ dnsPolicy: 'None', dnsConfig: { searches: ['ok.example', long] } }), withCluster).config.searches, ['ok.example']);
    const wide = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(150)}`);
    const fitted = podDNSConfig(pod({ dnsPolicy: 'None', dnsConfig: { searches: wide } }), withCluster).config.searches;
    assert.ok(fitted.join(' ').length <= 2048 && fitted.length === 13, `kept ${fitted.length}`);
  });
});

describe('resolvConfText', () => {
  it('writes search, a nameserver line per server, then options, as containerd does; leaves out empty lines', () => {
    assert.equal(resolvConfText({ servers: ['10.96.0.10', '10.96.0.11'], searches: ['default.svc.cluster.local', 'svc.cluster.local'], options: ['ndots:5', 'edns0'] }),
      'search default.svc.cluster.local svc.cluster.local\nnameserver 10.96.0.10\nnameserver 10.96.0.11\noptions ndots:5 edns0\n');
    assert.equal(resolvConfText({ servers: ['1.1.1.1'], searches: [], options: [] }), 'nameserver 1.1.1.1\n');
    // What it writes reads back as it was.
    const config = { servers: ['10.96.0.10'], searches: ['ns.svc.cluster.local'], options: ['ndots:2'] };
    assert.deepEqual(parseResolvConf(resolvConfText(config)), config);
  });
});

/**
 * The record rules of the Kubernetes DNS specification as src/dns applies
 * them (service-records.ts rules 1-4, cluster-zone.ts rules 1-6, names.ts),
 * table-driven; the e2e test (test/e2e/dns.test.ts) sends the same over sockets.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { dashedIP, ipOfDashed, reverseName, canonicalName } from '../../src/api/dns/names.js';
import { serviceRecords } from '../../src/api/dns/service-records.js';
import { ClusterRecords } from '../../src/api/dns/cluster-records.js';
import { ClusterZone } from '../../src/api/dns/cluster-zone.js';

const svc = (name: string, spec: Service['spec'], namespace = 'default'): Service => ({ metadata: { name, namespace }, spec });
const slice = (service: string, endpoints: EndpointSlice['endpoints'], ports: EndpointSlice['ports'] = [{ name: 'web', port: 80, protocol: 'TCP' }], addressType = 'IPv4'): EndpointSlice => ({
  metadata: { name: `${service}-x`, namespace: 'default', labels: { 'kubernetes.io/service-name': service } }, addressType, endpoints, ports,
});
const show = (rs: ReturnType<typeof serviceRecords>) => rs.map((r) => `${r.name} ${r.data.type} ${'address' in r.data ? r.data.address : 'port' in r.data ? `${r.data.port} ${r.data.target}` : r.data.target}`).sort();

describe('names', () => {
  for (const [ip, reverse, dashed] of [
    ['10.96.0.10', '10.0.96.10.in-addr.arpa', '10-96-0-10'],
    ['fd00::1', '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa', 'fd00-0-0-0-0-0-0-1'],
    ['2001:db8::ff00:42:8329', '9.2.3.8.2.4.0.0.0.0.f.f.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa', '2001-db8-0-0-0-ff00-42-8329'],
  ]) {
    test(`${ip}: reverse ${reverse}, label ${dashed}, and back`, () => {
      assert.equal(reverseName(ip), reverse);
      assert.equal(dashedIP(ip), dashed);
      assert.equal(ipOfDashed(dashed)?.replace(/(^|:)0+(?=[0-9a-f])/g, '$1'), ip.includes(':') ? dashed.replace(/-/g, ':') : ip);
    });
  }
  test('canonical names are lower case without the final dot', () => assert.equal(canonicalName('Web.Default.SVC.cluster.local.'), 'web.default.svc.cluster.local'));
});

describe('serviceRecords (spec 2.3-2.5)', () => {
  const z = 'cluster.local';
  const cases: [string, Service, EndpointSlice[], string[]][] = [
    ['ExternalName: one CNAME, nothing else', svc('ext', { type: 'ExternalName', externalName: 'Example.COM.', ports: [{ name: 'http', port: 80 }] }), [],
      ['ext.default.svc.cluster.local CNAME example.com']],
    ['ClusterIP, dual stack: A, AAAA, PTRs, SRV per named port only', svc('web', { clusterIP: '10.96.0.5', clusterIPs: ['10.96.0.5', 'fd00::5'], ports: [{ name: 'http', port: 80 }, { port: 81 }, { name: 'dns', port: 53, protocol: 'UDP' }] }), [], [
      '5.0.96.10.in-addr.arpa PTR web.default.svc.cluster.local',
      '5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa PTR web.default.svc.cluster.local',
      '_dns._udp.web.default.svc.cluster.local SRV 53 web.default.svc.cluster.local',
      '_http._tcp.web.default.svc.cluster.local SRV 80 web.default.svc.cluster.local',
      'web.default.svc.cluster.local A 10.96.0.5', 'web.default.svc.cluster.local AAAA fd00::5'].sort()],
    ['headless: ready endpoints only, hostname or dashed address, SRV and PTR per endpoint', svc('db', { clusterIP: 'None' }), [slice('db', [
      { addresses: ['10.0.0.1'], hostname: 'db-0' }, { addresses: ['10.0.0.2'], conditions: { ready: true } }, { addresses: ['10.0.0.3'], hostname: 'db-2', conditions: { ready: false } }])], [
      '1.0.0.10.in-addr.arpa PTR db-0.db.default.svc.cluster.local', '2.0.0.10.in-addr.arpa PTR 10-0-0-2.db.default.svc.cluster.local',
      '10-0-0-2.db.default.svc.cluster.local A 10.0.0.2', '_web._tcp.db.default.svc.cluster.local SRV 80 10-0-0-2.db.default.svc.cluster.local',
      '_web._tcp.db.default.svc.cluster.local SRV 80 db-0.db.default.svc.cluster.local', 'db-0.db.default.svc.cluster.local A 10.0.0.1',
      'db.default.svc.cluster.local A 10.0.0.1', 'db.default.svc.cluster.local A 10.0.0.2'].sort()],
    ['headless with publishNotReadyAddresses: not-ready endpoints too', svc('pn', { clusterIP: 'None', publishNotReadyAddresses: true }), [slice('pn', [{ addresses: ['10.0.0.3'], hostname: 'pn-0', conditions: { ready: false } }], [])], [
      '3.0.0.10.in-addr.arpa PTR pn-0.pn.default.svc.cluster.local', 'pn-0.pn.default.svc.cluster.local A 10.0.0.3', 'pn.default.svc.cluster.local A 10.0.0.3'].sort()],
    ['headless without a ready endpoint: no records', svc('none', { clusterIP: 'None' }), [slice('none', [{ addresses: ['10.0.0.9'], conditions: { ready: false } }])], []],
    ['FQDN slices are not served', svc('f', { clusterIP: 'None' }), [slice('f', [{ addresses: ['example.com'] }], [], 'FQDN')], []],
  ];
  for (const [name, s, slices, want] of cases) test(name, () => assert.deepEqual(show(serviceRecords(s, slices, z)), want));
});

describe('ClusterZone (NXDOMAIN, NODATA, pods, CNAME)', () => {
  const records = new ClusterRecords('cluster.local');
  records.setService(svc('web', { clusterIP: '10.96.0.5', ports: [{ name: 'http', port: 80 }] }));
  records.setService(svc('ext', { type: 'ExternalName', externalName: 'web.default.svc.cluster.local' }));
  const zone = new ClusterZone(records, () => 42);
  const ask = (name: string, type: string) => {
    const a = zone.answer({ name, type });
    return a && `${a.rcode} ${a.answers.map((r) => `${r.type}:${'data' in r ? (typeof r.data === 'object' ? JSON.stringify(r.data) : r.data) : ''}`).join(',')}${a.authorities.length ? ' +SOA' : ''}`;
  };
  const cases: [string, string, string | undefined][] = [
    ['web.default.svc.cluster.local', 'A', 'NOERROR A:10.96.0.5'],
    ['web.default.svc.cluster.local', 'AAAA', 'NOERROR  +SOA'],
    ['default.svc.cluster.local', 'A', 'NOERROR  +SOA'],
    ['svc.cluster.local', 'A', 'NOERROR  +SOA'],
    ['nope.default.svc.cluster.local', 'A', 'NXDOMAIN  +SOA'],
    ['web.other.svc.cluster.local', 'A', 'NXDOMAIN  +SOA'],
    ['ext.default.svc.cluster.local', 'A', 'NOERROR CNAME:web.default.svc.cluster.local,A:10.96.0.5'],
    ['10-1-2-3.any.pod.cluster.local', 'A', 'NOERROR A:10.1.2.3'],
    ['10-1-2-3.any.pod.cluster.local', 'AAAA', 'NOERROR  +SOA'],
    ['fd00-0-0-0-0-0-0-1.any.pod.cluster.local', 'AAAA', 'NOERROR AAAA:fd00:0:0:0:0:0:0:1'],
    ['x.any.pod.cluster.local', 'A', 'NXDOMAIN  +SOA'],
    ['5.0.96.10.in-addr.arpa', 'PTR', 'NOERROR PTR:web.default.svc.cluster.local'],
    ['6.0.96.10.in-addr.arpa', 'PTR', undefined],
    ['example.com', 'A', undefined],
    ['cluster.local', 'SOA', 'NOERROR SOA:{"mname":"ns.dns.cluster.local","rname":"hostmaster.cluster.local","serial":42,"refresh":7200,"retry":1800,"expire":86400,"minimum":5}'],
  ];
  for (const [name, type, want] of cases) test(`${name} ${type}: ${want ?? 'not ours (forwarded)'}`, () => assert.equal(ask(name, type), want));

  test('a deleted Service leaves no name behind', () => {
    records.deleteService(svc('web', {}));
    assert.equal(ask('web.default.svc.cluster.local', 'A'), 'NXDOMAIN  +SOA');
    assert.equal(ask('5.0.96.10.in-addr.arpa', 'PTR'), undefined);
    assert.equal(ask('default.svc.cluster.local', 'A'), 'NOERROR  +SOA', 'ext still holds the namespace');
  });
});

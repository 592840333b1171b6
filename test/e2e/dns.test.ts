/**
 * Cluster DNS against a real `k8ts server`, objects made with the real
 * kubectl, and a real `k8ts dns` process queried over UDP and TCP: every
 * record kind of the Kubernetes DNS specification, NXDOMAIN and NODATA with
 * the zone's SOA, changes visible within a second, and forwarding (with its
 * cache and the TCP retry of a truncated answer) to a stand-in upstream
 * listed in the resolv.conf the server is given.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import dnsPacket from 'dns-packet';
import { startCluster, eventually, cliPath, type Cluster } from './harness.js';
import { udpQuery, tcpQuery, dataOf, startUpstream, type Upstream } from './dns-client.js';

const octet = () => 1 + Math.floor(Math.random() * 250);
const dnsHost = `127.53.${octet()}.${octet()}`;
const upstreamHost = `127.54.${octet()}.${octet()}`;
const port = 10053;
const zone = 'cluster.local';

let cluster: Cluster;
let upstream: Upstream;
let dns: ChildProcess;
let readyPort = 0;
let metricsPort = 0;
let webIP = '';

const manifests = `apiVersion: v1
kind: Service
metadata: { name: web }
spec:
  ports: [{ name: http, port: 80, protocol: TCP }, { name: dns, port: 53, protocol: UDP }]
---
apiVersion: v1
kind: Service
metadata: { name: nginx }
spec:
  clusterIP: None
  ports: [{ name: web, port: 80 }]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: nginx-abcde
  labels: { kubernetes.io/service-name: nginx }
addressType: IPv4
ports: [{ name: web, port: 80, protocol: TCP }]
endpoints:
- { addresses: [10.244.1.10], hostname: web-0, conditions: { ready: true } }
- { addresses: [10.244.1.11], hostname: web-1, conditions: { ready: true } }
- { addresses: [10.244.1.12], conditions: { ready: true } }
- { addresses: [10.244.1.13], hostname: web-2, conditions: { ready: false } }
---
apiVersion: v1
kind: Service
metadata: { name: empty }
spec:
  clusterIP: None
  ports: [{ name: web, port: 80 }]
---
apiVersion: v1
kind: Service
metadata: { name: ext }
spec:
  type: ExternalName
  externalName: example.test
`;

const q = (name: string, type: Parameters<typeof udpQuery>[3], o?: { edns?: boolean }) => udpQuery(dnsHost, port, name, type, o);
const AA = dnsPacket.AUTHORITATIVE_ANSWER;

function startDns(resolvConf: string, kubeconfig: string): Promise<void> {
  dns = spawn(process.execPath, [cliPath, 'dns', '--kubeconfig', kubeconfig, '--bind-address', dnsHost, '--port', String(port),
    '--health-port', '0', '--ready-port', '0', '--metrics-port', '0', '--resolv-conf', resolvConf], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let buf = '';
    dns.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      for (const line of buf.split('\n')) {
        if (!line.includes('"dns server started"')) continue;
        const rec = JSON.parse(line);
        readyPort = rec.readyPort; metricsPort = rec.metricsPort;
        resolve();
      }
    });
    dns.once('exit', (code) => reject(new Error(`k8ts dns exited with ${code}: ${buf}`)));
  });
}

describe('cluster DNS (k8ts dns)', () => {
  before(async () => {
    cluster = await startCluster();
    upstream = await startUpstream(upstreamHost, port, {
      'example.test': [{ type: 'A', name: 'example.test', ttl: 60, data: '192.0.2.7' }],
      'big.example.test': Array.from({ length: 12 }, (_, i) => ({ type: 'TXT' as const, name: 'big.example.test', ttl: 60, data: `record ${i} `.padEnd(60, 'x') })),
    });
    const resolvConf = join(cluster.dataDir, 'resolv.conf');
    writeFileSync(resolvConf, `# the node's resolver, for the test\nnameserver ${upstreamHost}#${port}\n`);
    await cluster.kubectl(['apply', '-f', '-'], { input: manifests });
    webIP = (await cluster.kubectl(['get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}'])).stdout;
    await startDns(resolvConf, cluster.kubeconfig);
    await eventually(async () => (await fetch(`http://${dnsHost}:${readyPort}/ready`)).status === 200, 10_000, '/ready');
  });

  after(async () => {
    if (dns && dns.exitCode === null) { dns.kill('SIGKILL'); }
    await upstream?.close();
    await cluster?.cleanup();
  });

  test('a ClusterIP Service: A over UDP and TCP, authoritative, TTL 5', async () => {
    for (const r of [await q(`web.default.svc.${zone}`, 'A'), await tcpQuery(dnsHost, port, `web.default.svc.${zone}`, 'A')]) {
      assert.equal(r.rcode, 'NOERROR');
      assert.ok(r.flags! & AA);
      assert.deepEqual(dataOf(r.answers, 'A'), [webIP]);
      assert.equal(r.answers![0].type === 'A' && r.answers![0].ttl, 5);
    }
    // Names are case-insensitive; the question comes back as asked.
    const mixed = await q(`Web.Default.SVC.${zone}`, 'A');
    assert.deepEqual(dataOf(mixed.answers, 'A'), [webIP]);
    assert.equal(mixed.questions![0].name, `Web.Default.SVC.${zone}`);
  });

  test('SRV for each named port, PTR for the cluster IP', async () => {
    assert.deepEqual(dataOf((await q(`_http._tcp.web.default.svc.${zone}`, 'SRV')).answers, 'SRV'), [`0 100 80 web.default.svc.${zone}`]);
    assert.deepEqual(dataOf((await q(`_dns._udp.web.default.svc.${zone}`, 'SRV')).answers, 'SRV'), [`0 100 53 web.default.svc.${zone}`]);
    const ptr = await q(webIP.split('.').reverse().join('.') + '.in-addr.arpa', 'PTR');
    assert.deepEqual(dataOf(ptr.answers, 'PTR'), [`web.default.svc.${zone}`]);
  });

  test('a headless Service: the ready endpoints, per-hostname records, SRV per endpoint, PTR', async () => {
    assert.deepEqual(dataOf((await q(`nginx.default.svc.${zone}`, 'A')).answers, 'A'), ['10.244.1.10', '10.244.1.11', '10.244.1.12']);
    assert.deepEqual(dataOf((await q(`web-0.nginx.default.svc.${zone}`, 'A')).answers, 'A'), ['10.244.1.10']);
    assert.equal((await q(`web-2.nginx.default.svc.${zone}`, 'A')).rcode, 'NXDOMAIN', 'a not-ready endpoint has no record');
    const srv = await q(`_web._tcp.nginx.default.svc.${zone}`, 'SRV', { edns: true });
    assert.deepEqual(dataOf(srv.answers, 'SRV'), [
      `0 33 80 10-244-1-12.nginx.default.svc.${zone}`, `0 33 80 web-0.nginx.default.svc.${zone}`, `0 33 80 web-1.nginx.default.svc.${zone}`]);
    assert.deepEqual(dataOf(srv.additionals, 'A'), ['10.244.1.10', '10.244.1.11', '10.244.1.12']);
    // Without EDNS the 512 bytes hold the answers but not the targets' addresses: those are left out, not truncated.
    const plain = await q(`_web._tcp.nginx.default.svc.${zone}`, 'SRV');
    assert.ok(!(plain.flags! & dnsPacket.TRUNCATED_RESPONSE));
    assert.equal(dataOf(plain.answers, 'SRV').length, 3);
    assert.deepEqual(dataOf((await q('10.1.244.10.in-addr.arpa', 'PTR')).answers, 'PTR'), [`web-0.nginx.default.svc.${zone}`]);
    assert.deepEqual(dataOf((await q('12.1.244.10.in-addr.arpa', 'PTR')).answers, 'PTR'), [`10-244-1-12.nginx.default.svc.${zone}`]);
  });

  test('a headless Service of 25 pods fits one compressed UDP answer of 512 bytes, which busybox nslookup reads whole', async () => {
    const addresses = Array.from({ length: 25 }, (_, i) => `10.244.7.${i + 10}`);
    await cluster.kubectl(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Service
metadata: { name: many }
spec: { clusterIP: None, ports: [{ name: web, port: 80 }] }
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: { name: many-abcde, labels: { kubernetes.io/service-name: many } }
addressType: IPv4
ports: [{ name: web, port: 80, protocol: TCP }]
endpoints:
${addresses.map((a) => `- { addresses: [${a}], conditions: { ready: true } }`).join('\n')}
` });
    const name = `many.default.svc.${zone}`;
    const answer = await eventually(async () => {
      const r = await q(name, 'A');
      return r.answers?.length ? r : undefined;
    }, 5_000, 'the many Service answers');
    // Uncompressed, 25 A records of this name take 25 × 46 bytes: the answer came whole, without TC, in 512.
    assert.ok(!(answer.flags! & dnsPacket.TRUNCATED_RESPONSE), 'not truncated');
    assert.deepEqual(dataOf(answer.answers, 'A').sort(), [...addresses].sort());
    // busybox nslookup has no EDNS and no TCP: without compression about 10 of the 25 records fit (TC set).
    const out = await new Promise<string>((resolve, reject) => execFile('busybox', ['nslookup', '-type=a', name, `${dnsHost}:${port}`],
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}: ${stdout}${stderr}`)) : resolve(stdout))));
    assert.deepEqual([...out.matchAll(/^Address: (\S+)$/gm)].map((m) => m[1]).filter((a) => a !== `${dnsHost}:${port}`).sort(), [...addresses].sort());
    await cluster.kubectl(['delete', 'service', 'many']);
  });

  test('ExternalName is a CNAME, its target resolved upstream; pod names answer their address', async () => {
    const r = await q(`ext.default.svc.${zone}`, 'A');
    assert.deepEqual(dataOf(r.answers, 'CNAME'), ['example.test']);
    assert.deepEqual(dataOf(r.answers, 'A'), ['192.0.2.7']);
    assert.deepEqual(dataOf((await q(`10-244-3-4.default.pod.${zone}`, 'A')).answers, 'A'), ['10.244.3.4']);
    assert.deepEqual(dataOf((await q(`10-244-3-4.other.pod.${zone}`, 'A')).answers, 'A'), ['10.244.3.4']);
    assert.equal((await q(`not-an-ip.default.pod.${zone}`, 'A')).rcode, 'NXDOMAIN');
  });

  test('NXDOMAIN and NODATA carry the zone SOA; the schema version is published', async () => {
    for (const name of [`nosuch.default.svc.${zone}`, `empty.default.svc.${zone}`, `web.nosuchns.svc.${zone}`]) {
      const r = await q(name, 'A');
      assert.equal(r.rcode, 'NXDOMAIN', name);
      assert.equal(r.answers!.length, 0);
      const soa = r.authorities!.find((a) => a.type === 'SOA');
      assert.ok(soa && soa.type === 'SOA', `${name}: SOA in authority`);
      assert.equal(soa.name, zone);
      assert.equal(soa.data.mname, `ns.dns.${zone}`);
      assert.equal(soa.data.rname, `hostmaster.${zone}`);
      assert.equal(soa.data.minimum, 5);
    }
    for (const [name, type] of [[`web.default.svc.${zone}`, 'AAAA'], [`default.svc.${zone}`, 'A'], [`svc.${zone}`, 'A']] as const) {
      const r = await q(name, type);
      assert.equal(r.rcode, 'NOERROR', `${name} ${type}`);
      assert.equal(r.answers!.length, 0);
      assert.ok(r.authorities!.some((a) => a.type === 'SOA'));
    }
    assert.deepEqual(dataOf((await q(zone, 'SOA')).answers, 'SOA').length, 1);
    assert.deepEqual(dataOf((await q(`dns-version.${zone}`, 'TXT')).answers, 'TXT'), ['1.1.0']);
  });

  // How fast (issue #21: within 1 s) is measured by bench/dns.ts, not asserted here: a timed test flakes under load.
  test('a change is answered: an endpoint moves, a Service appears, a Service goes', async () => {
    const within = (what: string, check: () => Promise<boolean>) => eventually(async () => check(), 10_000, what);
    await cluster.kubectl(['patch', 'endpointslice', 'nginx-abcde', '--type=json', '-p',
      '[{"op":"replace","path":"/endpoints/0/addresses/0","value":"10.244.4.20"}]']);
    await within('web-0 at its new address', async () => dataOf((await q(`web-0.nginx.default.svc.${zone}`, 'A')).answers, 'A')[0] === '10.244.4.20');
    await cluster.kubectl(['create', 'service', 'clusterip', 'late', '--tcp=8080:8080']);
    await within('the new Service', async () => (await q(`late.default.svc.${zone}`, 'A')).answers!.length === 1);
    await cluster.kubectl(['delete', 'service', 'late']);
    await within('the deleted Service gone', async () => (await q(`late.default.svc.${zone}`, 'A')).rcode === 'NXDOMAIN');
  });

  test('other names are forwarded to resolv.conf\'s nameserver and cached', async () => {
    const asked = () => upstream.received.filter((r) => r.endsWith(' example.test A')).length;
    const first = await q('example.test', 'A');
    const before = asked();
    assert.ok(before >= 1);
    assert.equal(first.rcode, 'NOERROR');
    assert.ok(!(first.flags! & AA), 'a forwarded answer is not authoritative');
    assert.deepEqual(dataOf(first.answers, 'A'), ['192.0.2.7']);
    for (let i = 0; i < 5; i++) assert.deepEqual(dataOf((await tcpQuery(dnsHost, port, 'EXAMPLE.test', 'A')).answers, 'A'), ['192.0.2.7']);
    assert.equal(asked(), before, 'served from the cache: no new upstream query');
    const nx = await q('nosuch.example.test', 'A');
    assert.equal(nx.rcode, 'NXDOMAIN');
  });

  test('a truncated upstream answer is asked again over TCP; a client without EDNS gets TC and then TCP', async () => {
    const udp = await q('big.example.test', 'TXT');
    assert.ok(udp.flags! & dnsPacket.TRUNCATED_RESPONSE, 'over 512 bytes: truncated for a client without EDNS');
    assert.ok(upstream.received.includes('tcp big.example.test TXT'), 'the forwarder retried over TCP');
    assert.equal(dataOf((await tcpQuery(dnsHost, port, 'big.example.test', 'TXT')).answers, 'TXT').length, 12);
    assert.equal(dataOf((await q('big.example.test', 'TXT', { edns: true })).answers, 'TXT').length, 12, 'fits the EDNS payload of 1232');
  });

  test('/metrics counts requests; SIGTERM stops the server cleanly', async () => {
    const text = await (await fetch(`http://${dnsHost}:${metricsPort}/metrics`)).text();
    assert.match(text, /coredns_dns_requests_total\{proto="udp"\} \d+/);
    assert.match(text, /coredns_dns_responses_total\{rcode="NXDOMAIN"\} \d+/);
    const code = await new Promise<number | null>((resolve) => { dns.once('exit', (c) => resolve(c)); dns.kill('SIGTERM'); });
    assert.equal(code, 0);
  });
});

/**
 * Name compression (src/dns/compress.ts, RFC 1035 4.1.4): every rewritten
 * message decodes with dns-packet to the same records as the one it encoded,
 * pointers go only backwards, an SRV target is never a pointer, names keep
 * their case, and what is not dns-packet's own output passes unchanged. The
 * server (src/dns/server.ts) answers a headless Service of 20 pods within
 * 512 bytes where the uncompressed answer would have been truncated, and of
 * 60 pods with as many records as fit and TC (all of them over TCP). A real
 * resolver (busybox nslookup) reads the compressed answers in
 * test/e2e/dns.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket, { type Answer, type Packet } from 'dns-packet';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { compressNames } from '../../src/dns/compress.js';
import { ClusterRecords } from '../../src/api/dns/cluster-records.js';
import { ClusterZone } from '../../src/api/dns/cluster-zone.js';
import { Forwarder } from '../../src/dns/forwarder.js';
import { DnsServer } from '../../src/dns/server.js';
import { silentLogger } from '../../src/util/log.js';

const zone = 'cluster.local';
const response = (answers: Answer[], extra: Partial<Packet> = {}): Packet => ({
  type: 'response', id: 7, flags: dnsPacket.AUTHORITATIVE_ANSWER,
  questions: [{ name: answers[0]?.name ?? 'x.test', type: 'A', class: 'IN' }], answers, ...extra,
});
const a = (name: string, address: string): Answer => ({ type: 'A', name, ttl: 5, data: address });

/** Walks `msg`'s names (owners, and the RDATA names of NS, CNAME, PTR, MX, SOA, SRV) and returns every pointer. */
function pointers(msg: Buffer): { at: number; to: number; inSrvTarget: boolean }[] {
  const found: { at: number; to: number; inSrvTarget: boolean }[] = [];
  let i = 12;
  const name = (inSrvTarget = false) => {
    for (;;) {
      const len = msg[i]!;
      if (len === 0) { i += 1; return; }
      if ((len & 0xc0) === 0xc0) { found.push({ at: i, to: msg.readUInt16BE(i) & 0x3fff, inSrvTarget }); i += 2; return; }
      i += 1 + len;
    }
  };
  const counts = [4, 6, 8, 10].map((o) => msg.readUInt16BE(o));
  for (let q = 0; q < counts[0]!; q++) { name(); i += 4; }
  for (let r = 0; r < counts[1]! + counts[2]! + counts[3]!; r++) {
    name();
    const type = msg.readUInt16BE(i);
    const rdlength = msg.readUInt16BE(i + 8);
    i += 10;
    const end = i + rdlength;
    if (type === 2 || type === 5 || type === 12) name();
    if (type === 15) { i += 2; name(); }
    if (type === 6) { name(); name(); }
    if (type === 33) { i += 6; name(true); }
    i = end;
  }
  assert.equal(i, msg.length, 'the walk ends at the end of the message');
  return found;
}

function roundTrip(p: Packet): { plain: Buffer; packed: Buffer } {
  const plain = dnsPacket.encode(p);
  const packed = compressNames(plain);
  const strip = (d: ReturnType<typeof dnsPacket.decode>) => ({ ...d, flag_qr: undefined });
  assert.deepEqual(strip(dnsPacket.decode(packed)), strip(dnsPacket.decode(plain)), 'decodes to the same message');
  for (const ptr of pointers(packed)) {
    assert.ok(ptr.to < ptr.at, `pointer at ${ptr.at} goes back (to ${ptr.to})`);
    assert.ok(!ptr.inSrvTarget, 'an SRV target is written in full (RFC 2782)');
  }
  return { plain, packed };
}

describe('compressNames', () => {
  const web = `web.default.svc.${zone}`;
  const cases: [string, Packet, number][] = [
    ['A records of one name point at the question', response([a(web, '10.96.0.5'), a(web, '10.96.0.6')]), 2],
    ['headless per-pod names share the Service suffix', response(
      Array.from({ length: 3 }, (_, i) => a(`web-${i}.nginx.default.svc.${zone}`, `10.244.1.${i}`)),
      { questions: [{ name: `nginx.default.svc.${zone}`, type: 'A', class: 'IN' }] }), 3],
    ['CNAME and PTR RDATA are compressed', response([
      { type: 'CNAME', name: `ext.default.svc.${zone}`, ttl: 5, data: web },
      a(web, '10.96.0.5'),
      { type: 'PTR', name: '5.0.96.10.in-addr.arpa', ttl: 5, data: web },
    ]), 1 + 1 + 1 + 1],
    ['SOA mname and rname in the authority section', response([], {
      questions: [{ name: `nope.default.svc.${zone}`, type: 'A', class: 'IN' }],
      authorities: [{ type: 'SOA', name: zone, ttl: 5, data: { mname: `ns.dns.${zone}`, rname: `hostmaster.${zone}`, serial: 1, refresh: 7200, retry: 1800, expire: 86400, minimum: 5 } }],
    }), 1 + 1 + 1],
    ['MX exchange, NS target, TXT copied as is', response([
      { type: 'MX', name: 'mail.test', ttl: 5, data: { preference: 10, exchange: 'mx.mail.test' } },
      { type: 'NS', name: 'mail.test', ttl: 5, data: 'ns1.mail.test' },
      { type: 'TXT', name: 'mail.test', ttl: 5, data: 'mail.test mail.test' },
    ], { questions: [{ name: 'mail.test', type: 'MX', class: 'IN' }] }), 3 + 1 + 1],
    ['SRV targets in full, their addresses point into them; OPT keeps the root name', response([
      { type: 'SRV', name: `_web._tcp.nginx.default.svc.${zone}`, ttl: 5, data: { priority: 0, weight: 50, port: 80, target: `web-0.nginx.default.svc.${zone}` } },
      { type: 'SRV', name: `_web._tcp.nginx.default.svc.${zone}`, ttl: 5, data: { priority: 0, weight: 50, port: 80, target: `web-1.nginx.default.svc.${zone}` } },
    ], {
      questions: [{ name: `_web._tcp.nginx.default.svc.${zone}`, type: 'SRV', class: 'IN' }],
      additionals: [a(`web-0.nginx.default.svc.${zone}`, '10.244.1.10'), a(`web-1.nginx.default.svc.${zone}`, '10.244.1.11'),
        { type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, options: [] } as unknown as Answer],
    }), 2 + 2],
  ];
  for (const [name, p, wantPointers] of cases) {
    test(name, () => {
      const { plain, packed } = roundTrip(p);
      assert.ok(packed.length < plain.length, `${packed.length} < ${plain.length} bytes`);
      assert.equal(pointers(packed).length, wantPointers);
    });
  }

  test('names keep their case: a suffix differing in case is written again, not pointed to', () => {
    const { packed } = roundTrip(response([a('Web.Test', '10.0.0.1'), a('web.test', '10.0.0.2')], { questions: [{ name: 'Web.Test', type: 'A', class: 'IN' }] }));
    const decoded = dnsPacket.decode(packed);
    assert.deepEqual(decoded.answers!.map((r) => r.name), ['Web.Test', 'web.test']);
  });

  test('a message already compressed, cut short, or with bytes after its records passes unchanged', () => {
    const plain = dnsPacket.encode(response([a('web.test', '10.0.0.1'), a('web.test', '10.0.0.2')]));
    const packed = compressNames(plain);
    assert.equal(compressNames(packed), packed);
    const cut = plain.subarray(0, plain.length - 3);
    assert.equal(compressNames(cut), cut);
    const longer = Buffer.concat([plain, Buffer.from([0, 0])]);
    assert.equal(compressNames(longer), longer);
    const header = Buffer.alloc(8);
    assert.equal(compressNames(header), header);
  });

  test('a name first written past offset 0x3fff is written again in full (a pointer has 14 bits)', () => {
    const many = Array.from({ length: 1000 }, (_, i) => a(`pod-${i}.headless.default.svc.${zone}`, `10.244.${i >> 8}.${i & 255}`));
    const late = [a('late.example.test', '192.0.2.1'), a('late.example.test', '192.0.2.2')];
    const { packed } = roundTrip(response([...many, ...late], { questions: [{ name: `headless.default.svc.${zone}`, type: 'A', class: 'IN' }] }));
    assert.ok(packed.length > 0x4000 + 2 * 33, 'the late names start past what a pointer reaches');
    const tail = packed.subarray(packed.length - 2 * 33);
    assert.equal(tail.indexOf(Buffer.from('\x04late\x07example\x04test\x00', 'latin1')), 0, 'the first late name in full');
    assert.ok(tail.indexOf(Buffer.from('\x04late\x07example\x04test\x00', 'latin1'), 1) > 0, 'the second one in full too');
  });
});

/** A DNS server whose zone holds one headless Service `many` of n ready pods, and an A query for it without EDNS. */
function headless(n: number) {
  const records = new ClusterRecords(zone);
  const svc: Service = { metadata: { name: 'many', namespace: 'default' }, spec: { clusterIP: 'None', ports: [{ name: 'web', port: 80 }] } };
  const endpoints = Array.from({ length: n }, (_, i) => ({ addresses: [`10.244.1.${i + 10}`], conditions: { ready: true } }));
  const slice: EndpointSlice = {
    metadata: { name: 'many-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'many' } },
    addressType: 'IPv4', endpoints, ports: [{ name: 'web', port: 80, protocol: 'TCP' }],
  };
  records.setService(svc);
  records.setSlice(slice);
  const server = new DnsServer({
    host: '127.0.0.1', port: 0, records, zone: new ClusterZone(records, () => 1), logger: silentLogger,
    forwarder: new Forwarder({ upstreams: [], logger: silentLogger }),
  });
  const query = dnsPacket.encode({ type: 'query', id: 99, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name: `many.default.svc.${zone}`, type: 'A', class: 'IN' }] });
  return { server, endpoints, query };
}

describe('the DNS server answers a headless Service within 512 bytes over UDP without EDNS', () => {
  test('20 pods: every record, no TC, where the uncompressed answer would not fit', async () => {
    const { server, endpoints, query } = headless(20);
    const bytes = await server.handle(query, 'udp');
    assert.ok(bytes);
    const answer = dnsPacket.decode(bytes);
    assert.ok(bytes.length <= 512, `${bytes.length} bytes`);
    assert.equal((answer.flags ?? 0) & dnsPacket.TRUNCATED_RESPONSE, 0, 'not truncated');
    assert.deepEqual(answer.answers!.map((r) => (r as { data: string }).data).sort(), endpoints.map((e) => e.addresses[0]).sort());
    // The same records without compression: more than 512 bytes, which the server would have truncated.
    assert.ok(dnsPacket.encode({ ...answer, flags: answer.flags }).length > 512);
  });

  test('60 pods do not fit: as many records as fit, with TC; over TCP all 60', async () => {
    const { server, endpoints, query } = headless(60);
    const udp = await server.handle(query, 'udp');
    assert.ok(udp && udp.length <= 512, `${udp?.length} bytes`);
    const part = dnsPacket.decode(udp);
    assert.ok((part.flags ?? 0) & dnsPacket.TRUNCATED_RESPONSE, 'TC set');
    const all = endpoints.map((e) => e.addresses[0]);
    const got = part.answers!.map((r) => (r as { data: string }).data);
    assert.ok(got.length > 20 && got.length < 60, `${got.length} records in 512 bytes`);
    for (const a of got) assert.ok(all.includes(a), a);
    const missing = all.find((a) => !got.includes(a))!;
    const oneMore = compressNames(dnsPacket.encode({ ...part, answers: [...part.answers!, { type: 'A', name: `many.default.svc.${zone}`, ttl: 5, data: missing }] }));
    assert.ok(oneMore.length > 512, 'one record more would not have fitted');
    const tcp = await server.handle(query, 'tcp');
    assert.deepEqual(dnsPacket.decode(tcp!).answers!.map((r) => (r as { data: string }).data).sort(), [...all].sort());
  });
});

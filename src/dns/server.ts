/**
 * The DNS server: UDP and TCP listeners on one address and port (RFC 1035
 * 4.2; TCP framing with a two-byte length, RFC 7766), answering from the
 * cluster zone, else from the forwarder.
 *
 *  1. A message that does not decode, or has no single question, is FORMERR;
 *     an opcode other than QUERY is NOTIMP (RFC 1035 4.1.1).
 *  2. The answer echoes the ID, the question and RD; RA is set; AA only for
 *     the cluster's own answers. A query with EDNS0 gets an OPT back
 *     (RFC 6891 7).
 *  3. Over UDP an answer larger than the client's payload size (512 without
 *     EDNS0) first loses its additional section, and if still too large
 *     keeps as many of its answer records as fit, with TC set, so the client
 *     asks again over TCP (RFC 2181 9 allows the partial RRset; CoreDNS does
 *     the same through miekg/dns's Truncate, and a resolver without TCP,
 *     such as older musl's, still gets addresses). Names are compressed
 *     (compress.ts), as CoreDNS compresses them.
 *  4. Answers are kept as bytes, keyed by the query's bytes after its ID, and
 *     served again with the new ID: cluster answers while the records'
 *     generation is unchanged, forwarded ones for at most a second (so their
 *     TTLs still count down). This is what makes a repeated query cost one
 *     map lookup and one send.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket, { type Answer, type DecodedPacket, type OptAnswer, type Packet } from 'dns-packet';
import type { Logger } from '../util/log.js';
import { compressNames } from './compress.js';
import type { ClusterRecords } from '../api/dns/cluster-records.js';
import type { ClusterZone } from '../api/dns/cluster-zone.js';
import { countDown, type Forwarder } from './forwarder.js';
import type { DnsMetrics } from './metrics.js';

const rcodes: Record<string, number> = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 };
const rcodeNames = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];
const QR = 0x8000;
const ednsPayload = 1232;
const maxCached = 10000;

export interface DnsServerOptions {
  host: string;
  port: number;
  records: ClusterRecords;
  zone: ClusterZone;
  forwarder: Forwarder;
  logger: Logger;
  metrics?: DnsMetrics;
  now?: () => number;
}

interface WireEntry { bytes: Buffer; generation?: number; expiresAt?: number }
type Proto = 'udp' | 'tcp';

const encode = (p: Packet): Buffer => compressNames(dnsPacket.encode(p));

export class DnsServer {
  private udp?: dgram.Socket;
  private tcp?: net.Server;
  private readonly conns = new Set<net.Socket>();
  private readonly wire = new Map<string, WireEntry>();
  private readonly now: () => number;

  constructor(private readonly opts: DnsServerOptions) {
    this.now = opts.now ?? Date.now;
  }

  async start(): Promise<void> {
    const udp = dgram.createSocket(net.isIPv6(this.opts.host) ? 'udp6' : 'udp4');
    udp.on('message', (msg, rinfo) => {
      const reply = this.handle(msg, 'udp');
      if (reply instanceof Promise) reply.then((r) => { if (r) udp.send(r, rinfo.port, rinfo.address); }, (err) => this.opts.logger.error('answer failed', { err }));
      else if (reply) udp.send(reply, rinfo.port, rinfo.address);
    });
    udp.on('error', (err) => this.opts.logger.error('udp socket error', { err }));
    await new Promise<void>((resolve, reject) => { udp.once('error', reject); udp.bind(this.opts.port, this.opts.host, () => { udp.off('error', reject); resolve(); }); });
    this.udp = udp;
    const tcp = net.createServer((conn) => this.serveTCP(conn));
    await new Promise<void>((resolve, reject) => { tcp.once('error', reject); tcp.listen(this.opts.port, this.opts.host, () => { tcp.off('error', reject); resolve(); }); });
    this.tcp = tcp;
  }

  async close(): Promise<void> {
    this.udp?.close();
    for (const c of this.conns) c.destroy();
    await new Promise<void>((resolve) => (this.tcp ? this.tcp.close(() => resolve()) : resolve()));
  }

  /** The answer's bytes, now when cached (rule 4), else later; undefined to send nothing. */
  handle(msg: Buffer, proto: Proto): Buffer | Promise<Buffer | undefined> | undefined {
    if (msg.length < 12 || msg[2] & 0x80) return undefined; // not a query: never answer a response
    this.opts.metrics?.requests.inc({ proto });
    const key = proto[0] + msg.toString('latin1', 2);
    const hit = this.wire.get(key);
    if (hit && (hit.generation === undefined || hit.generation === this.opts.records.generation)
      && (hit.expiresAt === undefined || hit.expiresAt > this.now())) {
      const out = Buffer.from(hit.bytes);
      out[0] = msg[0]; out[1] = msg[1];
      this.opts.metrics?.responses.inc({ rcode: rcodeNames[out[3] & 0xf] ?? 'OTHER' });
      return out;
    }
    let query: DecodedPacket;
    try { query = dnsPacket.decode(msg); } catch { return this.formErr(msg); }
    return this.answer(query, proto).then((r) => {
      if (r.cache) this.remember(key, r.bytes, r.cache);
      this.opts.metrics?.responses.inc({ rcode: rcodeNames[r.bytes[3] & 0xf] ?? 'OTHER' });
      return r.bytes;
    });
  }

  private remember(key: string, bytes: Buffer, how: Omit<WireEntry, 'bytes'>): void {
    if (this.wire.size >= maxCached) this.wire.clear(); // stale entries of old generations go all at once
    this.wire.set(key, { bytes, ...how });
  }

  /** Rules 1-3. */
  private async answer(query: DecodedPacket, proto: Proto): Promise<{ bytes: Buffer; cache?: Omit<WireEntry, 'bytes'> }> {
    const opt = query.additionals?.find((a): a is OptAnswer => a.type === 'OPT');
    const reply = (rcode: string, body: Partial<Packet>, aa: boolean): Packet => ({
      type: 'response', id: query.id,
      flags: (query.flags ?? 0) & dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (aa ? dnsPacket.AUTHORITATIVE_ANSWER : 0) | rcodes[rcode],
      questions: query.questions, answers: [], authorities: [], ...body,
      additionals: [...(body.additionals ?? []), ...(opt ? [{ type: 'OPT', name: '.', udpPayloadSize: ednsPayload, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] } as OptAnswer] : [])],
    });
    const q = query.questions?.[0];
    const opcode = (query as DecodedPacket & { opcode?: string }).opcode;
    if (opcode && opcode !== 'QUERY') return { bytes: this.fit(reply('NOTIMP', {}, false), opt, proto) };
    if (!q || query.questions!.length !== 1) return { bytes: this.fit(reply('FORMERR', {}, false), opt, proto) };
    const generation = this.opts.records.generation;
    const own = this.opts.zone.answer(q);
    if (own) {
      let answers: Answer[] = own.answers;
      if (own.chase && (q.type === 'A' || q.type === 'AAAA')) {
        const up = await this.opts.forwarder.resolve({ name: own.chase, type: q.type, class: 'IN' });
        if (up?.rcode === 'NOERROR') answers = [...answers, ...countDown(up.answers, up.storedAt, this.now())];
      }
      const bytes = this.fit(reply(own.rcode, { answers, authorities: own.authorities, additionals: own.additionals }, true), opt, proto);
      return { bytes, cache: own.chase ? { expiresAt: this.now() + 1000 } : { generation } };
    }
    const wasCached = !!this.opts.forwarder.cached(q);
    if (wasCached) this.opts.metrics?.cacheHits.inc(); else { this.opts.metrics?.cacheMisses.inc(); this.opts.metrics?.forwardRequests.inc(); }
    const up = await this.opts.forwarder.resolve(q);
    if (!up) return { bytes: this.fit(reply('SERVFAIL', {}, false), opt, proto) };
    const now = this.now();
    const body = { answers: countDown(up.answers, up.storedAt, now), authorities: countDown(up.authorities, up.storedAt, now) };
    const bytes = this.fit(reply(up.rcode in rcodes ? up.rcode : 'SERVFAIL', body, false), opt, proto);
    return { bytes, cache: up.expiresAt > now ? { expiresAt: Math.min(up.expiresAt, now + 1000) } : undefined };
  }

  /** Rule 3. */
  private fit(p: Packet, opt: OptAnswer | undefined, proto: Proto): Buffer {
    const bytes = encode(p);
    const limit = proto === 'tcp' ? 65535 : opt ? Math.max(512, Math.min(opt.udpPayloadSize, ednsPayload)) : 512;
    if (bytes.length <= limit) return bytes;
    // Additional data may be left out without truncating (RFC 2181 9): the SRV targets' addresses go first.
    const opts = (p.additionals ?? []).filter((a) => a.type === 'OPT');
    const lean = encode({ ...p, additionals: opts });
    if (lean.length <= limit) return lean;
    // The longest prefix of the answers that fits (binary search: the size grows with the count).
    const answers = p.answers ?? [];
    const truncated = (n: number) => encode({ ...p, flags: (p.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE, answers: answers.slice(0, n), authorities: [], additionals: opts });
    let best = truncated(0);
    for (let lo = 1, hi = answers.length - 1; lo <= hi;) {
      const mid = (lo + hi) >> 1;
      const bytes = truncated(mid);
      if (bytes.length <= limit) { best = bytes; lo = mid + 1; } else hi = mid - 1;
    }
    return best;
  }

  /** Rule 1 for a message that does not decode: its header back, QR and FORMERR set, no sections. */
  private formErr(msg: Buffer): Buffer {
    const out = Buffer.alloc(12);
    msg.copy(out, 0, 0, 4);
    out.writeUInt16BE((out.readUInt16BE(2) & 0x7900) | QR | dnsPacket.RECURSION_AVAILABLE | rcodes.FORMERR, 2);
    return out;
  }

  private serveTCP(conn: net.Socket): void {
    this.conns.add(conn);
    let buf = Buffer.alloc(0);
    conn.setTimeout(10_000, () => conn.destroy()); // idle connections are closed, as CoreDNS's 10 s read timeout
    conn.on('close', () => this.conns.delete(conn));
    conn.on('error', () => conn.destroy());
    conn.on('data', (d) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
        buf = buf.subarray(2 + msg.length);
        const send = (r: Buffer | undefined) => {
          if (!r || conn.destroyed) return;
          const len = Buffer.alloc(2);
          len.writeUInt16BE(r.length);
          conn.write(Buffer.concat([len, r]));
        };
        const reply = this.handle(Buffer.from(msg), 'tcp');
        if (reply instanceof Promise) reply.then(send, (err) => this.opts.logger.error('answer failed', { err }));
        else send(reply);
      }
    });
  }
}

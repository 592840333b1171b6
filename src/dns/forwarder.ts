/**
 * Names outside the cluster go to the node's nameservers (CoreDNS's
 * `forward . /etc/resolv.conf` then `cache 30`):
 *
 *  1. One UDP socket sends every query with a fresh random ID and EDNS0
 *     (1232-byte payload); an answer is taken only from the server asked,
 *     with that ID and the same question.
 *  2. No answer within the timeout: the next nameserver, in resolv.conf order.
 *  3. A truncated (TC) answer is asked again over TCP from the same server.
 *  4. Answers are cached by (name, type, class) for their smallest TTL, a
 *     denial for its SOA's minimum, both at most 30 s; SERVFAIL and
 *     timeouts are not cached. A cached answer is served with its TTLs
 *     counted down. Concurrent questions for one name share one upstream query;
 *     at most 10,000 upstream queries are in flight (past that: SERVFAIL
 *     without asking, so a flood of names cannot use up the 65,536 IDs).
 */
import dgram from 'node:dgram';
import net from 'node:net';
import { randomInt } from 'node:crypto';
import dnsPacket, { type Answer, type DecodedPacket, type Packet, type Question } from 'dns-packet';
import type { Logger } from '../util/log.js';

export interface Upstream { host: string; port: number }

export interface ForwardedAnswer {
  rcode: string;
  answers: Answer[];
  authorities: Answer[];
  /** ms since the epoch when it came from upstream. */
  storedAt: number;
  expiresAt: number;
}

export interface ForwarderOptions {
  upstreams: Upstream[];
  timeoutMs?: number;
  maxTTL?: number;
  cacheSize?: number;
  logger: Logger;
  now?: () => number;
}

interface Pending { resolve(p: DecodedPacket): void; host: string; port: number; question: Question }

/** Upstream queries in flight at most. */
const maxPending = 10_000;

const cacheKey = (q: Question) => `${q.name.toLowerCase().replace(/\.$/, '')} ${q.type} ${q.class ?? 'IN'}`;

export class Forwarder {
  private readonly cache = new Map<string, ForwardedAnswer>();
  private readonly inflight = new Map<string, Promise<ForwardedAnswer | undefined>>();
  private readonly pending = new Map<number, Pending>();
  private socket?: dgram.Socket;
  private readonly now: () => number;
  cacheHits = 0;
  cacheMisses = 0;

  constructor(private readonly opts: ForwarderOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Rule 4: a cached answer, with TTLs counted down, or undefined. */
  cached(q: Question): ForwardedAnswer | undefined {
    const key = cacheKey(q);
    const hit = this.cache.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt <= this.now()) { this.cache.delete(key); return undefined; }
    return hit;
  }

  /** The answer for `q`, from the cache or upstream; undefined when no upstream answered. */
  resolve(q: Question): Promise<ForwardedAnswer | undefined> {
    const hit = this.cached(q);
    if (hit) { this.cacheHits++; return Promise.resolve(hit); }
    this.cacheMisses++;
    const key = cacheKey(q);
    let p = this.inflight.get(key);
    if (!p) {
      p = this.ask(q).finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p;
  }

  close(): void {
    this.socket?.close();
    this.socket = undefined;
    for (const p of this.pending.values()) p.resolve(undefined as unknown as DecodedPacket);
    this.pending.clear();
  }

  /** Rules 2 and 3. */
  private async ask(q: Question): Promise<ForwardedAnswer | undefined> {
    for (const up of this.opts.upstreams) {
      let res = await this.askUDP(q, up);
      if (res && res.flag_tc) res = await this.askTCP(q, up).catch(() => res);
      if (!res) continue;
      return this.store(q, res);
    }
    this.opts.logger.debug('no upstream answered', { name: q.name, type: q.type });
    return undefined;
  }

  private query(q: Question, id: number): Packet {
    return {
      type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name: q.name, type: q.type, class: q.class ?? 'IN' }],
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }],
    };
  }

  private askUDP(q: Question, up: Upstream): Promise<DecodedPacket | undefined> {
    // A flood of distinct names must not use up the 65,536 IDs (the search for a free one would never end):
    // past the bound a query is not sent and its asker gets SERVFAIL.
    if (this.pending.size >= maxPending) return Promise.resolve(undefined);
    const sock = this.udpSocket();
    let id = randomInt(0, 65536);
    while (this.pending.has(id)) id = randomInt(0, 65536);
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.pending.delete(id); resolve(undefined); }, this.opts.timeoutMs ?? 2000);
      this.pending.set(id, { host: up.host, port: up.port, question: q, resolve: (p) => { clearTimeout(timer); resolve(p); } });
      sock.send(dnsPacket.encode(this.query(q, id)), up.port, up.host, (err) => {
        if (err) { this.pending.delete(id); clearTimeout(timer); resolve(undefined); }
      });
    });
  }

  private udpSocket(): dgram.Socket {
    if (this.socket) return this.socket;
    const sock = dgram.createSocket('udp4');
    sock.on('message', (msg, rinfo) => {
      let p: DecodedPacket;
      try { p = dnsPacket.decode(msg); } catch { return; }
      const pending = this.pending.get(p.id ?? -1);
      const q = p.questions?.[0];
      // Rule 1: from the server asked, for the question asked.
      if (!pending || rinfo.address !== pending.host || rinfo.port !== pending.port) return;
      if (!q || q.name.toLowerCase() !== pending.question.name.toLowerCase().replace(/\.$/, '') || q.type !== pending.question.type) return;
      this.pending.delete(p.id!);
      pending.resolve(p);
    });
    sock.on('error', (err) => this.opts.logger.warn('forwarder socket error', { err }));
    sock.unref();
    this.socket = sock;
    return sock;
  }

  private askTCP(q: Question, up: Upstream): Promise<DecodedPacket | undefined> {
    return new Promise((resolve) => {
      const conn = net.connect(up.port, up.host);
      let buf = Buffer.alloc(0);
      const done = (p: DecodedPacket | undefined) => { clearTimeout(timer); conn.destroy(); resolve(p); };
      const timer = setTimeout(() => done(undefined), this.opts.timeoutMs ?? 2000);
      conn.on('connect', () => conn.write(dnsPacket.streamEncode(this.query(q, randomInt(0, 65536)))));
      conn.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          try { done(dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0)))); } catch { done(undefined); }
        }
      });
      conn.on('error', () => done(undefined));
      conn.on('close', () => done(undefined));
    });
  }

  /** Rule 4. */
  private store(q: Question, p: DecodedPacket): ForwardedAnswer {
    const rcode = (p as DecodedPacket & { rcode?: string }).rcode ?? 'NOERROR';
    const answers = p.answers ?? [];
    const authorities = p.authorities ?? [];
    const now = this.now();
    const ttl = Math.min(this.opts.maxTTL ?? 30, ttlOf(answers, authorities));
    const entry: ForwardedAnswer = { rcode, answers, authorities, storedAt: now, expiresAt: now + ttl * 1000 };
    const cacheable = (rcode === 'NOERROR' || rcode === 'NXDOMAIN') && ttl > 0 && !p.flag_tc;
    if (cacheable) {
      this.cache.set(cacheKey(q), entry);
      if (this.cache.size > (this.opts.cacheSize ?? 10000)) this.cache.delete(this.cache.keys().next().value!);
    }
    return entry;
  }
}

/** The smallest TTL of the answers, or of a denial its SOA's (RFC 2308 section 5). */
function ttlOf(answers: Answer[], authorities: Answer[]): number {
  if (answers.length) return Math.min(...answers.map((a) => ('ttl' in a && a.ttl) || 0));
  const soa = authorities.find((a) => a.type === 'SOA');
  if (soa && soa.type === 'SOA') return Math.min(soa.ttl ?? 0, soa.data.minimum ?? 0);
  return 0;
}

/** `answers` with each TTL lowered by the seconds spent in the cache. */
export function countDown(records: Answer[], storedAt: number, now: number): Answer[] {
  const age = Math.floor((now - storedAt) / 1000);
  if (age <= 0) return records;
  return records.map((r) => ('ttl' in r && r.ttl !== undefined ? { ...r, ttl: Math.max(0, r.ttl - age) } as Answer : r));
}

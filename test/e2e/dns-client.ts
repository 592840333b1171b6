/** A DNS client and a tiny upstream DNS server for the DNS tests and bench, over real sockets. */
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket, { type Answer, type DecodedPacket, type Packet, type Question } from 'dns-packet';

export type Reply = DecodedPacket & { rcode: string };

/**
 * How long a query waits for its answer: a resolver's own default (resolv.conf's `timeout:5`, glibc's and
 * musl's), which is what a pod gives the cluster DNS before it asks again; 0.5 and 2 s were below it and,
 * at CI's load of 30 and more, below what one wake-up of the DNS process can take.
 */
const answerMs = 5_000;

export function udpQuery(host: string, port: number, name: string, type: Question['type'], o: { edns?: boolean; timeoutMs?: number } = {}): Promise<Reply> {
  const id = Math.floor(Math.random() * 65536);
  const msg = dnsPacket.encode({
    type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type, class: 'IN' }],
    additionals: o.edns ? [{ type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }] : [],
  });
  const sock = dgram.createSocket('udp4');
  return new Promise<Reply>((resolve, reject) => {
    const timer = setTimeout(() => { sock.close(); reject(new Error(`no UDP answer for ${name} ${type}`)); }, o.timeoutMs ?? answerMs);
    sock.on('message', (m) => {
      const p = dnsPacket.decode(m) as Reply;
      if (p.id !== id) return;
      clearTimeout(timer);
      sock.close();
      resolve(p);
    });
    sock.send(msg, port, host);
  });
}

export function tcpQuery(host: string, port: number, name: string, type: Question['type']): Promise<Reply> {
  const id = Math.floor(Math.random() * 65536);
  return new Promise<Reply>((resolve, reject) => {
    const conn = net.connect(port, host);
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => { conn.destroy(); reject(new Error(`no TCP answer for ${name} ${type}`)); }, answerMs);
    conn.on('connect', () => conn.write(dnsPacket.streamEncode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type, class: 'IN' }] })));
    conn.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        clearTimeout(timer);
        conn.destroy();
        resolve(dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0))) as Reply);
      }
    });
    conn.on('error', (e) => { clearTimeout(timer); reject(e); });
  });
}

/** The data of the answers of one type, as strings (SRV as "priority weight port target"). */
export function dataOf(answers: Answer[] | undefined, type: string): string[] {
  return (answers ?? []).filter((a) => a.type === type).map((a) => {
    if (a.type === 'SRV') return `${a.data.priority} ${a.data.weight} ${a.data.port} ${a.data.target}`;
    if (a.type === 'TXT') return (Array.isArray(a.data) ? a.data : [a.data]).map(String).join('');
    return String((a as { data: unknown }).data);
  }).sort();
}

export interface Upstream {
  /** Questions received, as "udp|tcp name type". */
  received: string[];
  close(): Promise<void>;
}

/**
 * A stand-in for the node's resolver: fixed answers for a few names, over
 * UDP and TCP; `big.example.test` TXT does not fit 512 bytes, so over UDP it
 * answers truncated and the asker must come back over TCP.
 */
export async function startUpstream(host: string, port: number, records: Record<string, Answer[]>): Promise<Upstream> {
  const received: string[] = [];
  const reply = (q: DecodedPacket, proto: 'udp' | 'tcp'): Packet => {
    const question = q.questions![0];
    received.push(`${proto} ${question.name} ${question.type}`);
    const answers = (records[question.name.toLowerCase()] ?? []).filter((a) => a.type === question.type);
    const nx = !records[question.name.toLowerCase()];
    const base: Packet = { type: 'response', id: q.id, flags: dnsPacket.RECURSION_AVAILABLE | (nx ? 3 : 0), questions: q.questions, answers };
    if (proto === 'udp' && dnsPacket.encodingLength(base) > 512) return { ...base, answers: [], flags: base.flags! | dnsPacket.TRUNCATED_RESPONSE };
    return base;
  };
  const udp = dgram.createSocket('udp4');
  udp.on('message', (m, r) => udp.send(dnsPacket.encode(reply(dnsPacket.decode(m), 'udp')), r.port, r.address));
  await new Promise<void>((resolve) => udp.bind(port, host, () => resolve()));
  const tcp = net.createServer((c) => {
    let buf = Buffer.alloc(0);
    c.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        c.end(dnsPacket.streamEncode(reply(dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0))), 'tcp')));
      }
    });
    c.on('error', () => c.destroy());
  });
  await new Promise<void>((resolve) => tcp.listen(port, host, () => resolve()));
  return { received, close: async () => { udp.close(); await new Promise<void>((r) => tcp.close(() => r())); } };
}

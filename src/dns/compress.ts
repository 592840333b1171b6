/**
 * Name compression (RFC 1035 4.1.4) over a message dns-packet encoded.
 *
 * dns-packet writes every name in full; its forks do no better
 * (@leichtgewicht/dns-packet 6 decodes pointers but writes none), and dns2 3,
 * which does compress, writes one array element per bit, too slow for a
 * server that aims at 20,000 queries/s. So the message is encoded by
 * dns-packet and then rewritten once, front to back:
 *
 *  1. Each name is written as its labels until a suffix already written
 *     earlier in the output is met; that suffix becomes a pointer to it.
 *     Suffixes are matched byte for byte (a name keeps its case) and only
 *     those starting below offset 0x4000 can be pointed to (14 bits).
 *  2. Owner names of questions and records are compressed, and the names in
 *     the RDATA of the types RFC 1035 defines with names (NS, CNAME, PTR,
 *     SOA, MX: RFC 3597 4 allows no other). An SRV target is written in full
 *     (RFC 2782: "name compression is not to be used for this field"), but
 *     later names may point into it. Any other RDATA is copied.
 *  3. RDLENGTH is rewritten for a record whose RDATA shrank.
 *  4. A message that is not what dns-packet writes (a pointer already in it,
 *     a length running past the end) is returned unchanged: compression is an
 *     optimisation, never a reason to fail an answer.
 */

const TYPE_NS = 2;
const TYPE_CNAME = 5;
const TYPE_SOA = 6;
const TYPE_PTR = 12;
const TYPE_MX = 15;
const TYPE_SRV = 33;
const maxPointer = 0x3fff;

class Malformed extends Error {}

class Rewriter {
  readonly out: Buffer;
  at = 0;
  private o = 0;
  /** A suffix's wire bytes (latin1) → its offset in `out` (rule 1). */
  private readonly written = new Map<string, number>();

  constructor(private readonly msg: Buffer) {
    this.out = Buffer.allocUnsafe(msg.length);
  }

  get outLength(): number { return this.o; }

  copy(n: number): void {
    if (this.at + n > this.msg.length) throw new Malformed();
    this.msg.copy(this.out, this.o, this.at, this.at + n);
    this.at += n; this.o += n;
  }

  u16(): number {
    if (this.at + 2 > this.msg.length) throw new Malformed();
    return this.msg.readUInt16BE(this.at);
  }

  /** Rule 1; `point` false writes the labels in full but still records them. */
  name(point = true): void {
    const starts: number[] = [];
    let i = this.at;
    for (;;) {
      if (i >= this.msg.length) throw new Malformed();
      const len = this.msg[i]!;
      if (len === 0) break;
      if (len & 0xc0) throw new Malformed(); // already compressed, or an extended label type
      starts.push(i);
      i += 1 + len;
    }
    const end = i + 1;
    for (const s of starts) {
      const suffix = this.msg.toString('latin1', s, end);
      const earlier = this.written.get(suffix);
      if (point && earlier !== undefined) {
        this.out.writeUInt16BE(0xc000 | earlier, this.o);
        this.o += 2; this.at = end;
        return;
      }
      if (earlier === undefined && this.o <= maxPointer) this.written.set(suffix, this.o);
      const len = this.msg[s]! + 1;
      this.msg.copy(this.out, this.o, s, s + len);
      this.o += len;
    }
    this.out[this.o++] = 0;
    this.at = end;
  }

  /** One resource record (rules 2 and 3). */
  record(): void {
    this.name();
    const type = this.u16();
    this.copy(8); // type, class, TTL
    const rdlength = this.u16();
    this.copy(2);
    const lengthAt = this.o - 2;
    const rdataStart = this.o;
    const rdataEnd = this.at + rdlength;
    if (rdataEnd > this.msg.length) throw new Malformed();
    switch (type) {
      case TYPE_NS: case TYPE_CNAME: case TYPE_PTR: this.name(); break;
      case TYPE_MX: this.copy(2); this.name(); break;
      case TYPE_SOA: this.name(); this.name(); this.copy(20); break;
      case TYPE_SRV: this.copy(6); this.name(false); break;
      default: this.copy(rdlength);
    }
    if (this.at !== rdataEnd) throw new Malformed();
    this.out.writeUInt16BE(this.o - rdataStart, lengthAt);
  }
}

/** `msg` with its names compressed (see the rules above). */
export function compressNames(msg: Buffer): Buffer {
  if (msg.length < 12) return msg;
  const w = new Rewriter(msg);
  try {
    const [qd, an, ns, ar] = [4, 6, 8, 10].map((o) => msg.readUInt16BE(o)) as [number, number, number, number];
    w.copy(12);
    for (let i = 0; i < qd; i++) { w.name(); w.copy(4); }
    for (let i = 0; i < an + ns + ar; i++) w.record();
    if (w.at !== msg.length) return msg;
  } catch (err) {
    if (err instanceof Malformed) return msg;
    throw err;
  }
  return w.out.subarray(0, w.outLength);
}

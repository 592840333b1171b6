/**
 * Just enough DER writing to make certificates (RFC 5280) with node:crypto
 * alone: loading @peculiar/x509 and its ASN.1 schemas cost `k8ts up` about
 * 150 ms of CPU on a quiet machine (several times that under load), and its
 * objects stayed in the heap for the life of the process.
 */

/** Tag, length, content. */
export function tlv(tag: number, content: Uint8Array): Buffer {
  const n = content.length;
  let head: number[];
  if (n < 0x80) head = [tag, n];
  else {
    const octets: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) octets.unshift(v & 0xff);
    head = [tag, 0x80 | octets.length, ...octets];
  }
  return Buffer.concat([Buffer.from(head), content]);
}

export const sequence = (...items: Uint8Array[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Uint8Array[]): Buffer => tlv(0x31, Buffer.concat(items));
export const octetString = (content: Uint8Array): Buffer => tlv(0x04, content);
export const booleanTrue = (): Buffer => Buffer.from([0x01, 0x01, 0xff]);
export const nullValue = (): Buffer => Buffer.from([0x05, 0x00]);
/** A BIT STRING of whole octets (signatures, keys). */
export const bitString = (content: Uint8Array): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), content]));
/** [n] EXPLICIT. */
export const explicit = (n: number, inner: Uint8Array): Buffer => tlv(0xa0 | n, inner);

/** A non-negative INTEGER from its big-endian magnitude (a leading zero added when the high bit is set). */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const bytes = magnitude.subarray(start);
  return tlv(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

export const smallInteger = (n: number): Buffer => unsignedInteger(Buffer.from([n]));

export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const out: number[] = [];
  const push = (v: number) => {
    const groups: number[] = [v & 0x7f];
    for (v = Math.floor(v / 128); v > 0; v = Math.floor(v / 128)) groups.unshift((v & 0x7f) | 0x80);
    out.push(...groups);
  };
  push(arcs[0]! * 40 + arcs[1]!);
  for (const arc of arcs.slice(2)) push(arc);
  return tlv(0x06, Buffer.from(out));
}

/**
 * A named-bit BIT STRING (KeyUsage): bit 0 is the first octet's high bit; DER
 * drops trailing zero bits and counts them as unused.
 */
export function namedBits(bits: number): Buffer {
  if (bits === 0) return tlv(0x03, Buffer.from([0]));
  let highest = 0;
  for (let b = 0; b < 32; b++) if (bits & (1 << b)) highest = b;
  const octets = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (let b = 0; b <= highest; b++) if (bits & (1 << b)) octets[b >> 3]! |= 0x80 >> (b & 7);
  const unused = 7 - (highest % 8);
  return tlv(0x03, Buffer.concat([Buffer.from([unused]), octets]));
}

/** RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime after; seconds, Zulu. */
export function time(date: Date): Buffer {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '');
  const year = date.getUTCFullYear();
  return year >= 1950 && year < 2050 ? tlv(0x17, Buffer.from(`${digits.slice(2)}Z`, 'ascii')) : tlv(0x18, Buffer.from(`${digits}Z`, 'ascii'));
}

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/** A directory string as Go's pkix marshals it: PrintableString when every character allows it, else UTF8String. */
export function directoryString(s: string): Buffer {
  return PRINTABLE.test(s) ? tlv(0x13, Buffer.from(s, 'ascii')) : tlv(0x0c, Buffer.from(s, 'utf8'));
}

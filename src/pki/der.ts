/**
 * Just enough DER reading to take the raw SubjectPublicKeyInfo out of a
 * certificate (kubeadm's CA hash is over those exact bytes,
 * x509.Certificate.RawSubjectPublicKeyInfo, not over a re-encoding) and to
 * check a PKCS#10 request's self-signature over its raw request info.
 */

export interface Tlv { tag: number; start: number; contentStart: number; end: number }

export function readTlv(der: Uint8Array, at: number): Tlv {
  if (at + 2 > der.length) throw new Error('pki: truncated DER');
  const tag = der[at]!;
  let length = der[at + 1]!;
  let contentStart = at + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4) throw new Error('pki: unsupported DER length');
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + der[contentStart + i]!;
    contentStart += octets;
  }
  const end = contentStart + length;
  if (end > der.length) throw new Error('pki: truncated DER');
  return { tag, start: at, contentStart, end };
}

export function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.contentStart; at < parent.end; at = out[out.length - 1]!.end) out.push(readTlv(der, at));
  return out;
}

/**
 * RFC 5280: Certificate ::= SEQUENCE { tbsCertificate, ... };
 * TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature,
 * issuer, validity, subject, subjectPublicKeyInfo, ... }.
 */
export function rawSubjectPublicKeyInfo(certDer: Uint8Array): Uint8Array {
  const cert = readTlv(certDer, 0);
  const tbs = children(certDer, cert)[0];
  if (!tbs) throw new Error('pki: certificate has no tbsCertificate');
  const fields = children(certDer, tbs);
  const spki = fields[fields[0]?.tag === 0xa0 ? 6 : 5];
  if (!spki || spki.tag !== 0x30) throw new Error('pki: certificate has no subjectPublicKeyInfo');
  return certDer.subarray(spki.start, spki.end);
}

/** The dotted form of an OBJECT IDENTIFIER's content octets. */
export function decodeOID(content: Uint8Array): string {
  const arcs: number[] = [];
  let value = 0;
  for (const b of content) {
    value = value * 128 + (b & 0x7f);
    if (b & 0x80) continue;
    if (arcs.length === 0) arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
    else arcs.push(value);
    value = 0;
  }
  return arcs.join('.');
}

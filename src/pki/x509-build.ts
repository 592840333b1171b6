/**
 * Building and signing X.509 certificates (RFC 5280) with node:crypto: the
 * TBSCertificate is written as DER here and signed with crypto.sign, as Go's
 * x509.CreateCertificate does. What the certificates say (the profiles) is
 * decided in certificates.ts; this file only encodes it.
 */
import { createHash, createPrivateKey, createPublicKey, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { children, decodeOID, readTlv, type Tlv } from './der.js';
import {
  bitString, booleanTrue, explicit, namedBits, nullValue, objectIdentifier, octetString, sequence, set, directoryString,
  smallInteger, time, tlv, unsignedInteger,
} from './der-write.js';

const OID_COMMON_NAME = '2.5.4.3';
const OID_ORGANIZATION = '2.5.4.10';
const OID_SKI = '2.5.29.14';

/** KeyUsage bits by their RFC 5280 position (what @peculiar/x509's KeyUsageFlags numbered 1 << position). */
export const KeyUsage = {
  digitalSignature: 1, contentCommitment: 2, keyEncipherment: 4, dataEncipherment: 8, keyAgreement: 16,
  keyCertSign: 32, cRLSign: 64, encipherOnly: 128, decipherOnly: 256,
} as const;

/** A Name of O=... RDNs then CN, one attribute per RDN, in kubeadm's order. */
export function encodeName(commonName: string, organizations: string[]): Buffer {
  const rdn = (oid: string, value: string) => set(sequence(objectIdentifier(oid), directoryString(value)));
  return sequence(...organizations.map((o) => rdn(OID_ORGANIZATION, o)), rdn(OID_COMMON_NAME, commonName));
}

/** The signature algorithm a key signs with: ECDSA with its curve's hash, or RSA PKCS#1 v1.5 with SHA-256 (a kubeadm-made CA). */
function signatureAlgorithm(key: KeyObject): { hash: string; identifier: Buffer } {
  if (key.asymmetricKeyType === 'ec') {
    const byCurve: Record<string, [string, string]> = {
      prime256v1: ['sha256', '1.2.840.10045.4.3.2'], secp384r1: ['sha384', '1.2.840.10045.4.3.3'], secp521r1: ['sha512', '1.2.840.10045.4.3.4'],
    };
    const found = byCurve[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (!found) throw new Error(`pki: unsupported EC curve ${key.asymmetricKeyDetails?.namedCurve}`);
    return { hash: found[0], identifier: sequence(objectIdentifier(found[1])) };
  }
  if (key.asymmetricKeyType === 'rsa') return { hash: 'sha256', identifier: sequence(objectIdentifier('1.2.840.113549.1.1.11'), nullValue()) };
  throw new Error(`pki: unsupported key type ${key.asymmetricKeyType}`);
}

/** DER SubjectPublicKeyInfo of a public key PEM, or of a private key's public half. */
export function spkiOf(keyPem: string): Buffer {
  return createPublicKey(keyPem).export({ type: 'spki', format: 'der' });
}

/** RFC 5280 4.2.1.2 method (1), as Go and @peculiar/x509 compute it: SHA-1 of the subjectPublicKey bits. */
export function keyIdentifier(spkiDer: Uint8Array): Buffer {
  const spki = readTlv(spkiDer, 0);
  const bits = children(spkiDer, spki)[1];
  if (!bits || bits.tag !== 0x03) throw new Error('pki: malformed SubjectPublicKeyInfo');
  return createHash('sha1').update(spkiDer.subarray(bits.contentStart + 1, bits.end)).digest();
}

/** The TBSCertificate fields of a certificate DER, by name. */
function tbsFields(certDer: Uint8Array): { subject: Tlv; extensions?: Tlv } {
  const tbs = children(certDer, readTlv(certDer, 0))[0];
  if (!tbs) throw new Error('pki: certificate has no tbsCertificate');
  const fields = children(certDer, tbs);
  const at = fields[0]?.tag === 0xa0 ? 1 : 0;
  const subject = fields[at + 4];
  if (!subject || subject.tag !== 0x30) throw new Error('pki: certificate has no subject');
  return { subject, extensions: fields.find((f) => f.tag === 0xa3) };
}

/** The issuer side of a leaf: the CA certificate's subject exactly as encoded, and its key identifier (its SKI, or one computed). */
export function issuerOf(caCertDer: Uint8Array): { name: Buffer; keyId: Buffer } {
  const { subject, extensions } = tbsFields(caCertDer);
  const name = Buffer.from(caCertDer.subarray(subject.start, subject.end));
  for (const ext of extensions ? children(caCertDer, children(caCertDer, extensions)[0]!) : []) {
    const [oid, ...rest] = children(caCertDer, ext);
    if (!oid || decodeOID(caCertDer.subarray(oid.contentStart, oid.end)) !== OID_SKI) continue;
    const value = rest.at(-1)!; // OCTET STRING holding the OCTET STRING key identifier
    const inner = readTlv(caCertDer, value.contentStart);
    return { name, keyId: Buffer.from(caCertDer.subarray(inner.contentStart, inner.end)) };
  }
  return { name, keyId: keyIdentifier(new X509Certificate(caCertDer).publicKey.export({ type: 'spki', format: 'der' })) };
}

export interface Extension { oid: string; critical: boolean; value: Buffer }

const extension = (e: Extension): Buffer => sequence(objectIdentifier(e.oid), ...(e.critical ? [booleanTrue()] : []), octetString(e.value));

export const extensions = {
  keyUsage: (bits: number): Extension => ({ oid: '2.5.29.15', critical: true, value: namedBits(bits) }),
  extKeyUsage: (oids: string[]): Extension => ({ oid: '2.5.29.37', critical: false, value: sequence(...oids.map(objectIdentifier)) }),
  basicConstraints: (ca: boolean): Extension => ({ oid: '2.5.29.19', critical: true, value: ca ? sequence(booleanTrue()) : sequence() }),
  subjectKeyIdentifier: (keyId: Buffer): Extension => ({ oid: OID_SKI, critical: false, value: octetString(keyId) }),
  /** keyIdentifier [0] IMPLICIT only, as Go writes it. */
  authorityKeyIdentifier: (keyId: Buffer): Extension => ({ oid: '2.5.29.35', critical: false, value: sequence(tlv(0x80, keyId)) }),
  /** dNSName [2] and iPAddress [7] (4 or 16 octets); the IPs already canonical. */
  subjectAltName: (dnsNames: string[], ipAddresses: string[]): Extension => ({
    oid: '2.5.29.17', critical: false,
    value: sequence(...dnsNames.map((d) => tlv(0x82, Buffer.from(d, 'ascii'))), ...ipAddresses.map((ip) => tlv(0x87, ipOctets(ip)))),
  }),
};

function ipOctets(ip: string): Buffer {
  if (!ip.includes(':')) return Buffer.from(ip.split('.').map(Number));
  // Expand "::" to the missing zero groups; an embedded IPv4 tail becomes two groups.
  let text = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) { const o = v4[1]!.split('.').map(Number); text = text.slice(0, -v4[1]!.length) + `${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`; }
  const [head, tail] = text.includes('::') ? text.split('::') as [string, string] : [text, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

export interface CertificateFields {
  serialNumber: Buffer;
  issuer: Buffer;
  subject: Buffer;
  notBefore: Date;
  notAfter: Date;
  spki: Uint8Array;
  extensions: Extension[];
}

/** Encodes a v3 certificate and signs it with `signerKeyPem`; returns the PEM. */
export function signCertificate(fields: CertificateFields, signerKeyPem: string | KeyObject): string {
  const key = typeof signerKeyPem === 'string' ? createPrivateKey(signerKeyPem) : signerKeyPem;
  const alg = signatureAlgorithm(key);
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(fields.serialNumber),
    alg.identifier,
    fields.issuer,
    sequence(time(fields.notBefore), time(fields.notAfter)),
    fields.subject,
    Buffer.from(fields.spki),
    explicit(3, sequence(...fields.extensions.map(extension))),
  );
  const signature = sign(alg.hash, tbs, key);
  const der = sequence(tbs, alg.identifier, bitString(signature));
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}

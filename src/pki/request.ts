/**
 * Checking a certificate signing request as the API server's validation does
 * (upstream certificates.ParseCSR, then x509.CertificateRequest.CheckSignature),
 * synchronously with node:crypto so that validation stays a plain function:
 * one PEM block of type CERTIFICATE REQUEST, a PKCS#10 structure, and a
 * self-signature that verifies with the request's own public key. Returns
 * Go's error text, or undefined when the request is good.
 *
 * RFC 2986: CertificationRequest ::= SEQUENCE { certificationRequestInfo,
 * signatureAlgorithm AlgorithmIdentifier, signature BIT STRING };
 * CertificationRequestInfo ::= SEQUENCE { version, subject, subjectPKInfo, [0] attributes }.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { children, decodeOID, readTlv, type Tlv } from './der.js';

const SEQUENCE = 0x30;
const OID = 0x06;
const BIT_STRING = 0x03;

/** Signature algorithms Go verifies on CSRs (SHA-1 is still allowed there), by OID. */
const signatureAlgorithms: Record<string, { hash: string | null; key: 'ec' | 'rsa' | 'ed25519'; name: string }> = {
  '1.2.840.113549.1.1.5': { hash: 'sha1', key: 'rsa', name: 'RSA' },
  '1.2.840.113549.1.1.11': { hash: 'sha256', key: 'rsa', name: 'RSA' },
  '1.2.840.113549.1.1.12': { hash: 'sha384', key: 'rsa', name: 'RSA' },
  '1.2.840.113549.1.1.13': { hash: 'sha512', key: 'rsa', name: 'RSA' },
  '1.2.840.10045.4.1': { hash: 'sha1', key: 'ec', name: 'ECDSA' },
  '1.2.840.10045.4.3.2': { hash: 'sha256', key: 'ec', name: 'ECDSA' },
  '1.2.840.10045.4.3.3': { hash: 'sha384', key: 'ec', name: 'ECDSA' },
  '1.2.840.10045.4.3.4': { hash: 'sha512', key: 'ec', name: 'ECDSA' },
  '1.3.101.112': { hash: null, key: 'ed25519', name: 'Ed25519' },
};

/** Go's pem.Decode: the first well-formed block, wherever it is. */
export function firstPemBlock(text: string): { type: string; headers: boolean; der: Buffer } | undefined {
  const m = /-----BEGIN ([^-\r\n]*)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (!m) return undefined;
  const body = m[2]!;
  const headers = /^[^\s:]+:/m.test(body);
  return { type: m[1]!, headers, der: Buffer.from(body.replace(/^[^\s:]+:.*$/gm, '').replace(/\s+/g, ''), 'base64') };
}

interface Parsed { info: Tlv; algorithm: string; publicKey: KeyObject; signature: Uint8Array }

function parse(der: Buffer): Parsed | string {
  let outer: Tlv;
  try {
    outer = readTlv(der, 0);
  } catch {
    return 'asn1: syntax error: data truncated';
  }
  if (outer.tag !== SEQUENCE) return "asn1: structure error: tags don't match";
  if (outer.end !== der.length) return 'x509: trailing data';
  let parts: Tlv[];
  try {
    parts = children(der, outer);
  } catch {
    return 'asn1: syntax error: data truncated';
  }
  const [info, alg, sig] = parts;
  if (!info || !alg || !sig || info.tag !== SEQUENCE || alg.tag !== SEQUENCE || sig.tag !== BIT_STRING) return "asn1: structure error: tags don't match";
  const fields = children(der, info);
  const spki = fields[2];
  const oid = children(der, alg)[0];
  if (!spki || spki.tag !== SEQUENCE || !oid || oid.tag !== OID) return "asn1: structure error: tags don't match";
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: der.subarray(spki.start, spki.end), format: 'der', type: 'spki' });
  } catch {
    return 'x509: unsupported public key type';
  }
  // The BIT STRING's first octet counts unused bits; signatures use whole octets.
  const signature = der.subarray(sig.contentStart + 1, sig.end);
  return { info, algorithm: decodeOID(der.subarray(oid.contentStart, oid.end)), publicKey, signature };
}

/** Undefined when `pem` holds a CSR whose self-signature verifies; else upstream's error text. */
export function checkCertificateRequest(pem: Buffer | string): string | undefined {
  const block = firstPemBlock(typeof pem === 'string' ? pem : pem.toString('latin1'));
  if (!block || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  const der = block.der;
  const parsed = parse(der);
  if (typeof parsed === 'string') return parsed;
  const alg = signatureAlgorithms[parsed.algorithm];
  if (!alg) return 'x509: cannot verify signature: algorithm unimplemented';
  const keyType = parsed.publicKey.asymmetricKeyType;
  if (keyType !== alg.key) return `x509: signature algorithm specifies an ${alg.name} public key, but have public key of type ${keyType}`;
  const ok = (() => {
    try {
      return verify(alg.hash, der.subarray(parsed.info.start, parsed.info.end), parsed.publicKey, parsed.signature);
    } catch {
      return false;
    }
  })();
  if (ok) return undefined;
  return alg.key === 'rsa' ? 'crypto/rsa: verification error' : `x509: ${alg.name} verification failure`;
}

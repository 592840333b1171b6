/**
 * Whether a certificate is too weak to authenticate anyone, by the rules of
 * Go's crypto/x509 that kube-apiserver and the kubelet verify client
 * certificates with: a signature by MD2, MD5 or SHA-1 is an
 * InsecureAlgorithmError (SHA-1 since Go 1.18), and an RSA key under 1024
 * bits is refused (Go 1.24). The TLS servers run OpenSSL at security level 0
 * so that a client without signature_algorithms can connect as it can to Go
 * (util/tls-serving.ts); this keeps that from also admitting certificates
 * level 1 refused.
 */
import type { X509Certificate } from 'node:crypto';
import { children, decodeOID, readTlv } from './der.js';

/** md2WithRSA, md5WithRSA, sha1WithRSA (and its OIW twin), dsa-with-sha1, ecdsa-with-SHA1. */
const insecureSignatureOIDs = new Set([
  '1.2.840.113549.1.1.2', '1.2.840.113549.1.1.4', '1.2.840.113549.1.1.5', '1.3.14.3.2.29',
  '1.2.840.10040.4.3', '1.2.840.10045.4.1',
]);

/** RFC 5280: Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm AlgorithmIdentifier, signature }. */
export function signatureAlgorithmOID(certDer: Uint8Array): string {
  const [, algorithm] = children(certDer, readTlv(certDer, 0));
  const oid = algorithm && algorithm.tag === 0x30 ? children(certDer, algorithm)[0] : undefined;
  if (!oid || oid.tag !== 0x06) throw new Error('pki: certificate has no signatureAlgorithm');
  return decodeOID(certDer.subarray(oid.contentStart, oid.end));
}

export function isTooWeakToAuthenticate(cert: X509Certificate): boolean {
  if (insecureSignatureOIDs.has(signatureAlgorithmOID(cert.raw))) return true;
  const bits = cert.publicKey.asymmetricKeyDetails?.modulusLength;
  return cert.publicKey.asymmetricKeyType === 'rsa' && bits !== undefined && bits < 1024;
}

/**
 * Reading certificates with node:crypto alone (no @peculiar/x509 load), so
 * start-up checks of existing PKI stay fast.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { rawSubjectPublicKeyInfo } from './der.js';
import { canonicalIP } from './hosts.js';

export interface CertificateInfo {
  commonName: string;
  organizations: string[];
  issuerCommonName: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  dnsNames: string[];
  ipAddresses: string[];
  isCA: boolean;
}

/** The PEM blocks of one kind in a bundle, e.g. every CERTIFICATE of a CA bundle. */
export function pemBlocks(pem: string, label = 'CERTIFICATE'): string[] {
  const re = new RegExp(`-----BEGIN ${label}-----[^-]+-----END ${label}-----`, 'g');
  return (pem.match(re) ?? []).map((b) => `${b}\n`);
}

/**
 * kubeadm's --discovery-token-ca-cert-hash: `sha256:` and the hex SHA-256 of
 * the CA certificate's DER SubjectPublicKeyInfo.
 */
export function caCertHash(caCertPem: string): string {
  const der = new X509Certificate(caCertPem).raw;
  return `sha256:${createHash('sha256').update(rawSubjectPublicKeyInfo(der)).digest('hex')}`;
}

const asList = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
// Go's pkix.Name keeps the last CN when there are several.
const lastOf = (v: string | string[] | undefined): string => asList(v).at(-1) ?? '';

/**
 * Node prints SANs as `DNS:a, IP Address:1.2.3.4`, JSON-quoting values that
 * hold separators (`DNS:"a\u002cb"`).
 */
export function parseSubjectAltName(text: string | undefined): { dnsNames: string[]; ipAddresses: string[] } {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  const re = /([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/g;
  for (const m of (text ?? '').matchAll(re)) {
    const value = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
    if (m[1] === 'DNS') dnsNames.push(value);
    else if (m[1] === 'IP Address') ipAddresses.push(canonicalIP(value));
  }
  return { dnsNames, ipAddresses };
}

type NameObject = Record<string, string | string[] | undefined>;

function names(cert: X509Certificate): { subject: NameObject; issuer: NameObject } {
  // The legacy object gives the names as structured values (repeated attributes as arrays), not escaped text.
  return cert.toLegacyObject() as unknown as { subject: NameObject; issuer: NameObject };
}

/** CN and O values of a certificate's subject: the user and groups it authenticates as. */
export function subjectOf(cert: X509Certificate): { commonName: string; organizations: string[] } {
  const { subject } = names(cert);
  return { commonName: lastOf(subject.CN), organizations: asList(subject.O) };
}

export function certificateInfo(certPem: string): CertificateInfo {
  const cert = new X509Certificate(certPem);
  const { subject, issuer } = names(cert);
  return {
    commonName: lastOf(subject.CN),
    organizations: asList(subject.O),
    issuerCommonName: lastOf(issuer.CN),
    serialNumber: cert.serialNumber.toLowerCase(),
    notBefore: new Date(cert.validFrom),
    notAfter: new Date(cert.validTo),
    ...parseSubjectAltName(cert.subjectAltName),
    isCA: cert.ca,
  };
}

/** True when `certPem` is signed by the CA `caCertPem` (issuer name and signature). */
export function isIssuedBy(certPem: string, caCertPem: string): boolean {
  const cert = new X509Certificate(certPem);
  const ca = new X509Certificate(caCertPem);
  return cert.checkIssued(ca) && cert.verify(ca.publicKey);
}

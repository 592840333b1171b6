/**
 * Creating certificates: the cluster CA, certificates it issues, and CSRs it
 * signs. Profiles follow kubeadm (`cmd/kubeadm/app/util/pkiutil`) and the
 * CSR signer (`pkg/controller/certificates/authority`): ECDSA P-256, random
 * positive serials, SKI on every certificate and AKI = the CA's SKI,
 * backdating by 5 minutes for clock skew, leaf expiry capped at the CA's.
 */
import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import type * as X509 from '@peculiar/x509';
import { generateKeyPair, importSigningKey } from './keys.js';
import { canonicalIP } from './hosts.js';
import { loadX509, type X509Module } from './x509-lib.js';
import { encodeName, extensions, issuerOf, keyIdentifier, KeyUsage, signCertificate, spkiOf, type Extension } from './x509-build.js';

export type CertificateUsage = 'server' | 'client';

export interface CertificateAuthority { certPem: string; keyPem: string }

export interface CertificateSubject { commonName: string; organizations: string[] }

const SUBJECT_ALT_NAME = '2.5.29.17';
const DAY_MS = 24 * 60 * 60 * 1000;
/** kubeadm's CertificateBackdate and the CSR signer's backdate. */
const BACKDATE_MS = 5 * 60 * 1000;

const EXT_KEY_USAGE: Record<CertificateUsage, string> = {
  server: '1.3.6.1.5.5.7.3.1', // serverAuth
  client: '1.3.6.1.5.5.7.3.2', // clientAuth
};

/** 16 random bytes, high bit clear: positive, and within RFC 5280's 20 octets. */
function randomSerial(): Buffer {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x7f) | 0x01;
  return b;
}

// Certificates are made with node:crypto (x509-build.ts): no @peculiar/x509 load, which cost a fresh
// `k8ts up` most of its PKI time. Only CSRs (parsing, creating) still go through that library.

export async function createCA(opts: { commonName: string; days: number }): Promise<CertificateAuthority> {
  const { keyPem } = generateKeyPair();
  const spki = spkiOf(keyPem);
  const name = encodeName(opts.commonName, []);
  const now = Date.now();
  const certPem = signCertificate({
    serialNumber: randomSerial(), issuer: name, subject: name,
    notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(now + opts.days * DAY_MS), spki,
    extensions: [
      extensions.keyUsage(KeyUsage.digitalSignature | KeyUsage.keyCertSign | KeyUsage.cRLSign),
      extensions.basicConstraints(true),
      extensions.subjectKeyIdentifier(keyIdentifier(spki)),
    ],
  }, keyPem);
  return { certPem, keyPem };
}

function sanExtension(dnsNames: string[], ipAddresses: string[]): Extension[] {
  if (dnsNames.length + ipAddresses.length === 0) return [];
  return [extensions.subjectAltName(dnsNames, ipAddresses.map(canonicalIP))];
}

interface LeafRequest {
  ca: CertificateAuthority;
  /** The subject Name, DER. */
  subject: Uint8Array;
  /** The certified key's SubjectPublicKeyInfo, DER. */
  spki: Uint8Array;
  dnsNames: string[];
  ipAddresses: string[];
  usages: CertificateUsage[];
  days: number;
  /** A CSR signer's profile instead of the fixed one: its key usages, extended usage OIDs and expiry. */
  profile?: { keyUsage: number; extKeyUsages: string[]; notBeforeMs: number; notAfterMs: number };
}

/** Go leaves the extension out when no key usage bit is set (a CSR asking only for "client auth"). */
function keyUsageExtension(flags: number): Extension[] {
  return flags ? [extensions.keyUsage(flags)] : [];
}

function extKeyUsageExtension(oids: string[]): Extension[] {
  return oids.length ? [extensions.extKeyUsage(oids)] : [];
}

/** Signs one leaf certificate with the CA. The single place that sets a leaf's profile. */
function signLeaf(req: LeafRequest): string {
  const caCert = new X509Certificate(req.ca.certPem);
  const issuer = issuerOf(caCert.raw);
  const now = Date.now();
  const notAfter = Math.min(req.profile?.notAfterMs ?? now + req.days * DAY_MS, Date.parse(caCert.validTo));
  return signCertificate({
    serialNumber: randomSerial(),
    subject: Buffer.from(req.subject),
    issuer: issuer.name,
    notBefore: new Date(req.profile?.notBeforeMs ?? now - BACKDATE_MS),
    notAfter: new Date(notAfter),
    spki: req.spki,
    extensions: [
      ...keyUsageExtension(req.profile?.keyUsage ?? (KeyUsage.digitalSignature | KeyUsage.keyEncipherment)),
      ...extKeyUsageExtension(req.profile?.extKeyUsages ?? req.usages.map((u) => EXT_KEY_USAGE[u])),
      extensions.basicConstraints(false),
      extensions.subjectKeyIdentifier(keyIdentifier(req.spki)),
      extensions.authorityKeyIdentifier(issuer.keyId),
      ...sanExtension(req.dnsNames, req.ipAddresses),
    ],
  }, createPrivateKey(req.ca.keyPem));
}

export interface IssueCertificateOptions {
  ca: CertificateAuthority;
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  usages: CertificateUsage[];
  /** Validity; fractions allowed. Capped at the CA's own expiry. */
  days: number;
  /** Certify this key instead of generating a new one. */
  publicKeyPem?: string;
}

/** Issues a certificate for a new key pair, or for `publicKeyPem` when given. */
export function issueCertificate(opts: IssueCertificateOptions & { publicKeyPem: string }): Promise<{ certPem: string }>;
export function issueCertificate(opts: IssueCertificateOptions & { publicKeyPem?: undefined }): Promise<{ certPem: string; keyPem: string }>;
export function issueCertificate(opts: IssueCertificateOptions): Promise<{ certPem: string; keyPem?: string }>;
export async function issueCertificate(opts: IssueCertificateOptions): Promise<{ certPem: string; keyPem?: string }> {
  const generated = opts.publicKeyPem === undefined ? generateKeyPair() : undefined;
  const certPem = signLeaf({
    ca: opts.ca,
    subject: encodeName(opts.commonName, opts.organizations ?? []),
    spki: spkiOf(opts.publicKeyPem ?? generated!.publicKeyPem),
    dnsNames: opts.dnsNames ?? [],
    ipAddresses: opts.ipAddresses ?? [],
    usages: opts.usages,
    days: opts.days,
  });
  return generated ? { certPem, keyPem: generated.keyPem } : { certPem };
}

export type SignRequestResult =
  | { ok: true; certPem: string; subject: CertificateSubject; dnsNames: string[]; ipAddresses: string[] }
  | { ok: false; message: string };

function requestedNames(x: X509Module, csr: X509.Pkcs10CertificateRequest): { dnsNames: string[]; ipAddresses: string[]; emailAddresses: string[]; uris: string[] } {
  const san = csr.getExtension(SUBJECT_ALT_NAME);
  const items = san instanceof x.SubjectAlternativeNameExtension ? san.names.items : [];
  const of = (type: string) => items.filter((n) => n.type === type).map((n) => n.value);
  return { dnsNames: of('dns'), ipAddresses: of('ip'), emailAddresses: of('email'), uris: of('url') };
}

/** What a CSR asks for: its subject and subject alternative names (Go's x509.CertificateRequest fields the approvers read). */
export interface RequestedCertificate extends CertificateSubject { dnsNames: string[]; ipAddresses: string[]; emailAddresses: string[]; uris: string[] }

/** Parses a PEM CSR; undefined when it does not parse. */
export async function parseCertificateRequest(csrPem: string): Promise<RequestedCertificate | undefined> {
  const x = await loadX509();
  let csr: X509.Pkcs10CertificateRequest;
  try {
    csr = new x.Pkcs10CertificateRequest(csrPem);
  } catch {
    return undefined;
  }
  return { commonName: csr.subjectName.getField('CN').at(-1) ?? '', organizations: csr.subjectName.getField('O'), ...requestedNames(x, csr) };
}

/**
 * Signs a PKCS#10 request, as the CSR signer does: subject and requested DNS
 * and IP SANs are copied from the request (deciding whether they are allowed
 * is the approver's job), usages and lifetime come from the caller. A request
 * that does not parse or whose self-signature fails is an outcome, not a throw.
 */
export async function signCertificateRequest(opts: {
  ca: CertificateAuthority;
  csrPem: string;
  usages: CertificateUsage[];
  days: number;
  /** Overrides usages and days (the CSR signing controller's profile, csr-profile.ts). */
  profile?: LeafRequest['profile'];
}): Promise<SignRequestResult> {
  const x = await loadX509();
  let csr: X509.Pkcs10CertificateRequest;
  try {
    csr = new x.Pkcs10CertificateRequest(opts.csrPem);
  } catch (e) {
    return { ok: false, message: `unable to parse csr: ${(e as Error).message}` };
  }
  if (!(await csr.verify().catch(() => false))) return { ok: false, message: 'invalid csr: signature does not verify' };
  const subject: CertificateSubject = {
    commonName: csr.subjectName.getField('CN').at(-1) ?? '',
    organizations: csr.subjectName.getField('O'),
  };
  const { dnsNames, ipAddresses } = requestedNames(x, csr);
  const names = { dnsNames, ipAddresses };
  const certPem = signLeaf({
    ca: opts.ca, subject: new Uint8Array(csr.subjectName.toArrayBuffer()), spki: new Uint8Array(csr.publicKey.rawData), ...names, usages: opts.usages, days: opts.days, profile: opts.profile,
  });
  return { ok: true, certPem, subject, ...names };
}

function csrSanExtension(x: X509Module, dnsNames: string[], ipAddresses: string[]): X509.Extension[] {
  if (dnsNames.length + ipAddresses.length === 0) return [];
  return [new x.SubjectAlternativeNameExtension([
    ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...ipAddresses.map((value) => ({ type: 'ip' as const, value: canonicalIP(value) })),
  ], false)];
}

/**
 * A PKCS#10 request signed by `keyPem`, as a kubelet's TLS bootstrap sends
 * (subject CN=system:node:<name>, O=system:nodes).
 */
export async function createCertificateRequest(opts: {
  keyPem: string;
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
}): Promise<string> {
  const x = await loadX509();
  const key = await importSigningKey(opts.keyPem);
  const csr = await x.Pkcs10CertificateRequestGenerator.create({
    name: [...(opts.organizations ?? []).map((o) => ({ O: [o] })), { CN: [opts.commonName] }],
    keys: { privateKey: key.privateKey, publicKey: key.publicKey },
    signingAlgorithm: key.signingAlgorithm,
    extensions: csrSanExtension(x, opts.dnsNames ?? [], opts.ipAddresses ?? []),
  });
  return csr.toString('pem') + '\n';
}

/**
 * Creating certificates: the cluster CA, certificates it issues, and CSRs it
 * signs. Profiles follow kubeadm (`cmd/kubeadm/app/util/pkiutil`) and the
 * CSR signer (`pkg/controller/certificates/authority`): ECDSA P-256, random
 * positive serials, SKI on every certificate and AKI = the CA's SKI,
 * backdating by 5 minutes for clock skew, leaf expiry capped at the CA's.
 */
import { randomBytes, webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';
import { generateKeyPair, importPublicKey, importSigningKey } from './keys.js';
import { canonicalIP } from './hosts.js';
import { loadX509, type X509Module } from './x509-lib.js';

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
function randomSerial(): string {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x7f) | 0x01;
  return b.toString('hex');
}

/** RDNs in kubeadm's order: O=..., then CN. */
function subjectName(s: CertificateSubject): X509.JsonName {
  return [...s.organizations.map((o) => ({ O: [o] })), { CN: [s.commonName] }];
}

export async function createCA(opts: { commonName: string; days: number }): Promise<CertificateAuthority> {
  const x = await loadX509();
  const { keyPem } = generateKeyPair();
  const key = await importSigningKey(keyPem);
  const now = Date.now();
  const cert = await x.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: subjectName({ commonName: opts.commonName, organizations: [] }),
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + opts.days * DAY_MS),
    keys: { privateKey: key.privateKey, publicKey: key.publicKey },
    signingAlgorithm: key.signingAlgorithm,
    extensions: [
      new x.KeyUsagesExtension(x.KeyUsageFlags.digitalSignature | x.KeyUsageFlags.keyCertSign | x.KeyUsageFlags.cRLSign, true),
      new x.BasicConstraintsExtension(true, undefined, true),
      await x.SubjectKeyIdentifierExtension.create(key.publicKey),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem };
}

function sanExtension(x: X509Module, dnsNames: string[], ipAddresses: string[]): X509.Extension[] {
  if (dnsNames.length + ipAddresses.length === 0) return [];
  const names: X509.JsonGeneralNames = [
    ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...ipAddresses.map((value) => ({ type: 'ip' as const, value: canonicalIP(value) })),
  ];
  return [new x.SubjectAlternativeNameExtension(names, false)];
}

interface LeafRequest {
  ca: CertificateAuthority;
  subject: X509.JsonName | X509.Name;
  publicKey: webcrypto.CryptoKey | X509.PublicKey;
  dnsNames: string[];
  ipAddresses: string[];
  usages: CertificateUsage[];
  days: number;
  /** A CSR signer's profile instead of the fixed one: its key usages, extended usage OIDs and expiry. */
  profile?: { keyUsage: number; extKeyUsages: string[]; notBeforeMs: number; notAfterMs: number };
}

/** Go leaves the extension out when no key usage bit is set (a CSR asking only for "client auth"). */
function keyUsageExtension(x: X509Module, flags: number): X509.Extension[] {
  return flags ? [new x.KeyUsagesExtension(flags, true)] : [];
}

function extKeyUsageExtension(x: X509Module, oids: string[]): X509.Extension[] {
  return oids.length ? [new x.ExtendedKeyUsageExtension(oids, false)] : [];
}

interface ParsedCA { cert: X509.X509Certificate; key: Awaited<ReturnType<typeof importSigningKey>>; ski: X509.SubjectKeyIdentifierExtension | null }

/**
 * The parsed CA by its certificate and key PEM: a cluster's PKI signs a dozen
 * leaves with the same two or three CAs, and parsing the CA and importing its
 * key for each was about half of a fresh `k8ts up`'s certificate time.
 */
const parsedCAs = new Map<string, Promise<ParsedCA>>();
const parsedCALimit = 8;

function parseCA(x: X509Module, ca: CertificateAuthority): Promise<ParsedCA> {
  const id = ca.certPem + ca.keyPem;
  let parsed = parsedCAs.get(id);
  if (!parsed) {
    if (parsedCAs.size >= parsedCALimit) parsedCAs.delete(parsedCAs.keys().next().value!);
    parsed = (async () => {
      const cert = new x.X509Certificate(ca.certPem);
      return { cert, key: await importSigningKey(ca.keyPem), ski: cert.getExtension(x.SubjectKeyIdentifierExtension) };
    })();
    parsedCAs.set(id, parsed);
    parsed.catch(() => parsedCAs.delete(id));
  }
  return parsed;
}

/** Signs one leaf certificate with the CA. The single place that sets a leaf's profile. */
async function signLeaf(x: X509Module, req: LeafRequest): Promise<string> {
  const { cert: caCert, key: caKey, ski: caSki } = await parseCA(x, req.ca);
  const now = Date.now();
  const notAfter = Math.min(req.profile?.notAfterMs ?? now + req.days * DAY_MS, caCert.notAfter.getTime());
  const cert = await x.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: req.subject,
    issuer: caCert.subjectName,
    notBefore: new Date(req.profile?.notBeforeMs ?? now - BACKDATE_MS),
    notAfter: new Date(notAfter),
    publicKey: req.publicKey,
    signingKey: caKey.privateKey,
    signingAlgorithm: caKey.signingAlgorithm,
    extensions: [
      ...keyUsageExtension(x, req.profile?.keyUsage ?? (x.KeyUsageFlags.digitalSignature | x.KeyUsageFlags.keyEncipherment)),
      ...extKeyUsageExtension(x, req.profile?.extKeyUsages ?? req.usages.map((u) => EXT_KEY_USAGE[u])),
      new x.BasicConstraintsExtension(false, undefined, true),
      await x.SubjectKeyIdentifierExtension.create(req.publicKey),
      caSki
        ? new x.AuthorityKeyIdentifierExtension(caSki.keyId)
        : await x.AuthorityKeyIdentifierExtension.create(caKey.publicKey),
      ...sanExtension(x, req.dnsNames, req.ipAddresses),
    ],
  });
  return cert.toString('pem') + '\n';
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
  const x = await loadX509();
  const generated = opts.publicKeyPem === undefined ? generateKeyPair() : undefined;
  const publicKey = await importPublicKey(opts.publicKeyPem ?? generated!.publicKeyPem);
  const certPem = await signLeaf(x, {
    ca: opts.ca,
    subject: subjectName({ commonName: opts.commonName, organizations: opts.organizations ?? [] }),
    publicKey,
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
  const certPem = await signLeaf(x, {
    ca: opts.ca, subject: csr.subjectName, publicKey: csr.publicKey, ...names, usages: opts.usages, days: opts.days, profile: opts.profile,
  });
  return { ok: true, certPem, subject, ...names };
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
    name: subjectName({ commonName: opts.commonName, organizations: opts.organizations ?? [] }),
    keys: { privateKey: key.privateKey, publicKey: key.publicKey },
    signingAlgorithm: key.signingAlgorithm,
    extensions: sanExtension(x, opts.dnsNames ?? [], opts.ipAddresses ?? []),
  });
  return csr.toString('pem') + '\n';
}

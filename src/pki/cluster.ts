/**
 * The cluster's PKI directory, DATA/pki, in kubeadm's layout: ca.crt/ca.key,
 * apiserver.crt/.key (serving), admin.crt/.key (kubernetes-admin,
 * system:masters), apiserver-kubelet-client.crt/.key (the API server's
 * client certificate towards kubelets: kube-apiserver-kubelet-client,
 * system:masters, as kubeadm issues it), controller-manager.crt/.key and
 * scheduler.crt/.key (the client identities system:kube-controller-manager and
 * system:kube-scheduler that RBAC binds to their roles; kubeadm embeds them in
 * controller-manager.conf and scheduler.conf) and sa.key/sa.pub
 * (service-account token signing).
 *
 * ensureClusterPKI is idempotent. What exists is loaded and checked with
 * node:crypto only (a warm start costs a few ms); a leaf is (re)issued when it
 * is missing or unreadable, does not match its key, is not signed by the CA,
 * expires within RENEW_BEFORE_DAYS, or (the serving certificate) does not
 * cover every host. The CA and the service-account key are never replaced once
 * they exist: that would break every joined node and issued token.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createCA, issueCertificate, type CertificateAuthority } from './certificates.js';
import { readIfExists, writeFileAtomic } from './files.js';
import { coversHosts, splitHosts } from './hosts.js';
import { subjectOf } from './info.js';
import { generateKeyPair, publicKeyPemOf } from './keys.js';

export const CA_DAYS = 3650;
export const LEAF_DAYS = 365;
export const RENEW_BEFORE_DAYS = 30;
export const ADMIN_USER = 'kubernetes-admin';
export const ADMIN_GROUP = 'system:masters';
export const KUBELET_CLIENT_USER = 'kube-apiserver-kubelet-client';
export const CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';
export const SCHEDULER_USER = 'system:kube-scheduler';

const DAY_MS = 24 * 60 * 60 * 1000;
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

/** The serving certificate always names these, as kube-apiserver's does. */
export const DEFAULT_SERVING_HOSTS = [
  'localhost', '127.0.0.1', '::1',
  'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local',
];

export type PKIComponent = 'ca' | 'apiserver' | 'admin' | 'apiserver-kubelet-client' | 'controller-manager' | 'scheduler' | 'sa';

export interface ClusterPKIPaths {
  dir: string;
  caCert: string; caKey: string;
  apiserverCert: string; apiserverKey: string;
  adminCert: string; adminKey: string;
  kubeletClientCert: string; kubeletClientKey: string;
  controllerManagerCert: string; controllerManagerKey: string;
  schedulerCert: string; schedulerKey: string;
  serviceAccountKey: string; serviceAccountPublicKey: string;
}

export interface ClusterPKI {
  paths: ClusterPKIPaths;
  caCertPem: string; caKeyPem: string;
  apiserverCertPem: string; apiserverKeyPem: string;
  adminCertPem: string; adminKeyPem: string;
  kubeletClientCertPem: string; kubeletClientKeyPem: string;
  controllerManagerCertPem: string; controllerManagerKeyPem: string;
  schedulerCertPem: string; schedulerKeyPem: string;
  serviceAccountKeyPem: string; serviceAccountPublicKeyPem: string;
  /** What this call generated or reissued; empty when everything was current. Rewrite kubeconfigs when 'admin' or 'ca' is here. */
  issued: PKIComponent[];
}

export function clusterPKIPaths(dataDir: string): ClusterPKIPaths {
  const dir = join(dataDir, 'pki');
  const f = (name: string) => join(dir, name);
  return {
    dir,
    caCert: f('ca.crt'), caKey: f('ca.key'),
    apiserverCert: f('apiserver.crt'), apiserverKey: f('apiserver.key'),
    adminCert: f('admin.crt'), adminKey: f('admin.key'),
    kubeletClientCert: f('apiserver-kubelet-client.crt'), kubeletClientKey: f('apiserver-kubelet-client.key'),
    controllerManagerCert: f('controller-manager.crt'), controllerManagerKey: f('controller-manager.key'),
    schedulerCert: f('scheduler.crt'), schedulerKey: f('scheduler.key'),
    serviceAccountKey: f('sa.key'), serviceAccountPublicKey: f('sa.pub'),
  };
}

/** DEFAULT_SERVING_HOSTS, this machine's host name, and the caller's hosts. */
export function servingHosts(hosts: string[]): string[] {
  const own = hostname().toLowerCase();
  const ownIsValid = (() => { try { splitHosts([own]); return true; } catch { return false; } })();
  return [...DEFAULT_SERVING_HOSTS, ...(ownIsValid ? [own] : []), ...hosts];
}

interface Pair { certPem: string; keyPem: string }

async function writePair(certPath: string, keyPath: string, pair: Pair): Promise<void> {
  // Key first: a crash between the two leaves a cert/key mismatch, which the next start repairs.
  await writeFileAtomic(keyPath, pair.keyPem, 0o600);
  await writeFileAtomic(certPath, pair.certPem, 0o644);
}

async function ensureCA(paths: ClusterPKIPaths, issued: PKIComponent[]): Promise<CertificateAuthority> {
  const [certPem, keyPem] = await Promise.all([readIfExists(paths.caCert), readIfExists(paths.caKey)]);
  if (certPem === undefined) {
    const ca = await createCA({ commonName: 'kubernetes', days: CA_DAYS });
    await writePair(paths.caCert, paths.caKey, ca);
    issued.push('ca');
    return ca;
  }
  if (keyPem === undefined) throw new Error(`pki: ${paths.caCert} exists but ${paths.caKey} does not; k8ts needs the CA key`);
  const cert = new X509Certificate(certPem);
  if (!cert.ca) throw new Error(`pki: ${paths.caCert} is not a CA certificate`);
  if (!cert.checkPrivateKey(createPrivateKey(keyPem))) throw new Error(`pki: ${paths.caKey} does not match ${paths.caCert}`);
  return { certPem, keyPem };
}

/** A leaf is current when it parses, matches its key, chains to the CA, is not near expiry, and passes `fits`. */
function isCurrent(pair: Partial<Pair>, ca: X509Certificate, fits: (cert: X509Certificate) => boolean): pair is Pair {
  if (pair.certPem === undefined || pair.keyPem === undefined) return false;
  try {
    const cert = new X509Certificate(pair.certPem);
    return cert.checkPrivateKey(createPrivateKey(pair.keyPem))
      && cert.checkIssued(ca) && cert.verify(ca.publicKey)
      && Date.parse(cert.validTo) - Date.now() > RENEW_BEFORE_DAYS * DAY_MS
      && fits(cert);
  } catch {
    return false; // unreadable: reissue
  }
}

interface LeafSpec {
  component: PKIComponent;
  certPath: string;
  keyPath: string;
  fits: (cert: X509Certificate) => boolean;
  issue: () => Promise<Pair>;
}

async function ensureLeaf(spec: LeafSpec, caCert: X509Certificate, issued: PKIComponent[]): Promise<Pair> {
  const [certPem, keyPem] = await Promise.all([readIfExists(spec.certPath), readIfExists(spec.keyPath)]);
  const existing = { certPem, keyPem };
  if (isCurrent(existing, caCert, spec.fits)) return existing;
  const pair = await spec.issue();
  await writePair(spec.certPath, spec.keyPath, pair);
  issued.push(spec.component);
  return pair;
}

async function ensureServiceAccountKey(paths: ClusterPKIPaths, issued: PKIComponent[]): Promise<{ keyPem: string; publicKeyPem: string }> {
  const [keyPem, publicKeyPem] = await Promise.all([readIfExists(paths.serviceAccountKey), readIfExists(paths.serviceAccountPublicKey)]);
  if (keyPem === undefined) {
    const pair = generateKeyPair();
    await writeFileAtomic(paths.serviceAccountKey, pair.keyPem, 0o600);
    await writeFileAtomic(paths.serviceAccountPublicKey, pair.publicKeyPem, 0o644);
    issued.push('sa');
    return pair;
  }
  const derived = publicKeyPemOf(keyPem);
  if (publicKeyPem !== derived) await writeFileAtomic(paths.serviceAccountPublicKey, derived, 0o644);
  return { keyPem, publicKeyPem: derived };
}

function hasUsage(cert: X509Certificate, oid: string): boolean {
  return cert.keyUsage?.includes(oid) ?? false;
}

export async function ensureClusterPKI(dataDir: string, opts: { hosts: string[] }): Promise<ClusterPKI> {
  const paths = clusterPKIPaths(dataDir);
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  const issued: PKIComponent[] = [];
  const hosts = servingHosts(opts.hosts);
  const [ca, sa] = await Promise.all([ensureCA(paths, issued), ensureServiceAccountKey(paths, issued)]);
  const caCert = new X509Certificate(ca.certPem);
  const clientLeaf = (component: PKIComponent, certPath: string, keyPath: string, user: string, groups: string[]): LeafSpec => ({
    component, certPath, keyPath,
    fits: (cert) => hasUsage(cert, CLIENT_AUTH) && hasSubject(cert, user, groups[0]),
    issue: () => issueCertificate({ ca, commonName: user, organizations: groups, usages: ['client'], days: LEAF_DAYS }),
  });
  const [apiserver, admin, kubeletClient, controllerManager, scheduler] = await Promise.all([
    ensureLeaf({
      component: 'apiserver', certPath: paths.apiserverCert, keyPath: paths.apiserverKey,
      fits: (cert) => hasUsage(cert, SERVER_AUTH) && coversHosts(cert, hosts),
      issue: () => issueCertificate({ ca, commonName: 'kube-apiserver', ...splitHosts(hosts), usages: ['server'], days: LEAF_DAYS }),
    }, caCert, issued),
    ensureLeaf(clientLeaf('admin', paths.adminCert, paths.adminKey, ADMIN_USER, [ADMIN_GROUP]), caCert, issued),
    ensureLeaf(clientLeaf('apiserver-kubelet-client', paths.kubeletClientCert, paths.kubeletClientKey, KUBELET_CLIENT_USER, [ADMIN_GROUP]), caCert, issued),
    ensureLeaf(clientLeaf('controller-manager', paths.controllerManagerCert, paths.controllerManagerKey, CONTROLLER_MANAGER_USER, []), caCert, issued),
    ensureLeaf(clientLeaf('scheduler', paths.schedulerCert, paths.schedulerKey, SCHEDULER_USER, []), caCert, issued),
  ]);
  return {
    paths,
    caCertPem: ca.certPem, caKeyPem: ca.keyPem,
    apiserverCertPem: apiserver.certPem, apiserverKeyPem: apiserver.keyPem,
    adminCertPem: admin.certPem, adminKeyPem: admin.keyPem,
    kubeletClientCertPem: kubeletClient.certPem, kubeletClientKeyPem: kubeletClient.keyPem,
    controllerManagerCertPem: controllerManager.certPem, controllerManagerKeyPem: controllerManager.keyPem,
    schedulerCertPem: scheduler.certPem, schedulerKeyPem: scheduler.keyPem,
    serviceAccountKeyPem: sa.keyPem, serviceAccountPublicKeyPem: sa.publicKeyPem,
    issued,
  };
}

/** The certificate names `user`, and `group` when there is one (a component identity has no group). */
function hasSubject(cert: X509Certificate, user: string, group: string | undefined): boolean {
  const { commonName, organizations } = subjectOf(cert);
  return commonName === user && (group === undefined ? organizations.length === 0 : organizations.includes(group));
}

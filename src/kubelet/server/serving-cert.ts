/**
 * The kubelet's serving certificate when none is given (--tls-cert-file):
 * as upstream's kubelet does, a self-signed CA made for the occasion
 * (`<node>-ca@<unix time>`) and a serving certificate it signs
 * (`<node>@<unix time>`) for the node's name, addresses and localhost. The
 * API server does not verify kubelet serving certificates unless given
 * --kubelet-certificate-authority (upstream's default too); rotation through
 * a CSR (serverTLSBootstrap) is not done yet.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { createCA, issueCertificate, splitHosts, writeFileAtomic } from '../../pki/index.js';

export interface ServingCertificate { certPem: string; keyPem: string }

export async function selfSignedServingCertificate(nodeName: string, addresses: string[]): Promise<ServingCertificate> {
  const stamp = Math.floor(Date.now() / 1000);
  const ca = await createCA({ commonName: `${nodeName}-ca@${stamp}`, days: 365 });
  const hosts = splitHosts([nodeName, 'localhost', '127.0.0.1', ...addresses].filter((h) => h && h !== '0.0.0.0' && h !== '::'));
  const leaf = await issueCertificate({ ca, commonName: `${nodeName}@${stamp}`, ...hosts, usages: ['server'], days: 365 });
  // The chain, so a client that trusts the made-up CA can verify it.
  return { certPem: leaf.certPem + ca.certPem, keyPem: leaf.keyPem };
}

/**
 * Upstream's kubelet with --cert-dir and no --tls-cert-file writes its self-signed pair there
 * (kubelet.crt, kubelet.key) and reads it back on the next start; so does this, as
 * `<dir>/<node>.crt` and `.key` (one directory can serve many simulated nodes). A restart then
 * makes no CA and does not load the X.509 library (~150 ms and some MB of idle RSS that `k8ts up`
 * on an existing data directory otherwise never needs). A pair that does not match, no longer
 * covers the node's name and addresses, or expires within a day is made anew.
 */
export async function persistedServingCertificate(nodeName: string, addresses: string[], dir: string): Promise<ServingCertificate> {
  const certFile = join(dir, `${nodeName}.crt`);
  const keyFile = join(dir, `${nodeName}.key`);
  let kept: ServingCertificate | undefined;
  try {
    kept = { certPem: readFileSync(certFile, 'utf8'), keyPem: readFileSync(keyFile, 'utf8') };
  } catch {
    // Not there yet (or unreadable): made below.
  }
  if (kept && stillServes(kept, nodeName, addresses)) return kept;
  const made = await selfSignedServingCertificate(nodeName, addresses);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(keyFile, made.keyPem, 0o600);
  await writeFileAtomic(certFile, made.certPem);
  return made;
}

const renewWithinMs = 24 * 3600_000;

/** Whether a kept pair still serves the node: parseable, key and certificate matching, names covered, not about to expire. */
function stillServes(pair: ServingCertificate, nodeName: string, addresses: string[]): boolean {
  try {
    const cert = new X509Certificate(pair.certPem);
    if (!cert.checkPrivateKey(createPrivateKey(pair.keyPem))) return false;
    if (Date.parse(cert.validTo) - Date.now() < renewWithinMs) return false;
    const names = [nodeName, ...addresses].filter((h) => h && h !== '0.0.0.0' && h !== '::');
    return names.every((h) => (isIP(h) ? cert.checkIP(h) !== undefined : cert.checkHost(h) !== undefined));
  } catch {
    return false;
  }
}

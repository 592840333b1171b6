/**
 * The kubelet's serving certificate when none is given (--tls-cert-file):
 * as upstream's kubelet does, a self-signed CA made for the occasion
 * (`<node>-ca@<unix time>`) and a serving certificate it signs
 * (`<node>@<unix time>`) for the node's name, addresses and localhost. The
 * API server does not verify kubelet serving certificates unless given
 * --kubelet-certificate-authority (upstream's default too); rotation through
 * a CSR (serverTLSBootstrap) is not done yet.
 */
import { createCA, issueCertificate, splitHosts } from '../../pki/index.js';

export interface ServingCertificate { certPem: string; keyPem: string }

export async function selfSignedServingCertificate(nodeName: string, addresses: string[]): Promise<ServingCertificate> {
  const stamp = Math.floor(Date.now() / 1000);
  const ca = await createCA({ commonName: `${nodeName}-ca@${stamp}`, days: 365 });
  const hosts = splitHosts([nodeName, 'localhost', '127.0.0.1', ...addresses].filter((h) => h && h !== '0.0.0.0' && h !== '::'));
  const leaf = await issueCertificate({ ca, commonName: `${nodeName}@${stamp}`, ...hosts, usages: ['server'], days: 365 });
  // The chain, so a client that trusts the made-up CA can verify it.
  return { certPem: leaf.certPem + ca.certPem, keyPem: leaf.keyPem };
}

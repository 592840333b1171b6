/**
 * The front-proxy PKI of the aggregation layer, as kubeadm lays it out in
 * the cert dir: front-proxy-ca.{crt,key} and front-proxy-client.{crt,key}
 * (CN front-proxy-client, client usage). `k8ts server` makes them when
 * absent (kubeadm init already did); kube-apiserver's
 * --requestheader-client-ca-file and --proxy-client-{cert,key}-file.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCA, issueCertificate, writeFileAtomic, CA_DAYS, LEAF_DAYS } from '../pki/index.js';

export interface FrontProxyPKI { caPem: string; clientCertPem: string; clientKeyPem: string }

export async function ensureFrontProxyPKI(certDir: string): Promise<FrontProxyPKI> {
  const f = (name: string) => join(certDir, name);
  // The cluster PKI (made at the same time) may not have created the directory yet.
  mkdirSync(certDir, { recursive: true, mode: 0o700 });
  let ca: { certPem: string; keyPem: string };
  if (existsSync(f('front-proxy-ca.crt')) && existsSync(f('front-proxy-ca.key'))) {
    ca = { certPem: readFileSync(f('front-proxy-ca.crt'), 'utf8'), keyPem: readFileSync(f('front-proxy-ca.key'), 'utf8') };
  } else {
    ca = await createCA({ commonName: 'front-proxy-ca', days: CA_DAYS });
    await writeFileAtomic(f('front-proxy-ca.key'), ca.keyPem, 0o600);
    // 0600 like everything else in a server's data directory (kubeadm's init writes its own, 0644, before).
    await writeFileAtomic(f('front-proxy-ca.crt'), ca.certPem, 0o600);
  }
  if (!existsSync(f('front-proxy-client.crt')) || !existsSync(f('front-proxy-client.key'))) {
    const client = await issueCertificate({ ca, commonName: 'front-proxy-client', usages: ['client'], days: LEAF_DAYS });
    await writeFileAtomic(f('front-proxy-client.key'), client.keyPem, 0o600);
    await writeFileAtomic(f('front-proxy-client.crt'), client.certPem, 0o600);
  }
  return { caPem: ca.certPem, clientCertPem: readFileSync(f('front-proxy-client.crt'), 'utf8'), clientKeyPem: readFileSync(f('front-proxy-client.key'), 'utf8') };
}

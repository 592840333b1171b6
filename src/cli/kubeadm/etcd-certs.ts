/**
 * init's etcd certificates, kubeadm's certlist for stacked etcd
 * (cmd/kubeadm/app/phases/certs/certlist.go), under --cert-dir:
 *   etcd/ca                 CN etcd-ca: the CA etcd trusts for clients and peers
 *   etcd/server             CN NODE, server+client, DNS [NODE localhost], IPs [ADDRESS 127.0.0.1 ::1]
 *   etcd/peer               CN NODE, server+client, the same names (GetEtcdPeerAltNames)
 *   etcd/healthcheck-client CN kube-etcd-healthcheck-client, client
 *   apiserver-etcd-client   CN kube-apiserver-etcd-client, client (what the API server presents)
 * Pairs that exist are kept ("Using existing ..."), as kubeadm does on a re-run
 * and on a control plane whose certificates were copied or downloaded.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createCA, issueCertificate, writeFileAtomic, CA_DAYS, LEAF_DAYS, type CertificateAuthority, type CertificateUsage } from '../../pki/index.js';

export interface EtcdCertsOptions {
  certDir: string;
  nodeName: string;
  advertiseAddress: string;
  log(line: string): void;
}

/** The files the API server's --etcd-cafile/--etcd-certfile/--etcd-keyfile name. */
export const etcdClientFiles = (certDir: string) => ({
  caFile: join(certDir, 'etcd/ca.crt'),
  certFile: join(certDir, 'apiserver-etcd-client.crt'),
  keyFile: join(certDir, 'apiserver-etcd-client.key'),
});

interface Leaf { name: string; commonName: string; usages: CertificateUsage[]; serving: boolean }

const leaves = (nodeName: string): Leaf[] => [
  { name: 'etcd/server', commonName: nodeName, usages: ['server', 'client'], serving: true },
  { name: 'etcd/peer', commonName: nodeName, usages: ['server', 'client'], serving: true },
  { name: 'etcd/healthcheck-client', commonName: 'kube-etcd-healthcheck-client', usages: ['client'], serving: false },
  { name: 'apiserver-etcd-client', commonName: 'kube-apiserver-etcd-client', usages: ['client'], serving: false },
];

export async function etcdCertsPhase(o: EtcdCertsOptions): Promise<void> {
  const f = (name: string) => join(o.certDir, name);
  await mkdir(f('etcd'), { recursive: true, mode: 0o755 });
  const ca = await ensureEtcdCA(o);
  // kubeadm's GetEtcdAltNames: the node name and localhost, the advertise address and both loopbacks.
  const dnsNames = [o.nodeName, 'localhost'];
  const ipAddresses = [...new Set([o.advertiseAddress, '127.0.0.1', '::1'])];
  for (const leaf of leaves(o.nodeName)) {
    if (existsSync(f(`${leaf.name}.crt`)) && existsSync(f(`${leaf.name}.key`))) {
      o.log(`[certs] Using existing ${leaf.name} certificate and key on disk`);
      continue;
    }
    o.log(`[certs] Generating "${leaf.name}" certificate and key`);
    if (leaf.serving) o.log(`[certs] ${leaf.name} serving cert is signed for DNS names [${dnsNames.join(' ')}] and IPs [${ipAddresses.join(' ')}]`);
    const pair = await issueCertificate({
      ca, commonName: leaf.commonName, usages: leaf.usages, days: LEAF_DAYS,
      ...(leaf.serving ? { dnsNames, ipAddresses } : {}),
    });
    await writeFileAtomic(f(`${leaf.name}.key`), pair.keyPem, 0o600);
    await writeFileAtomic(f(`${leaf.name}.crt`), pair.certPem, 0o644);
  }
}

async function ensureEtcdCA(o: EtcdCertsOptions): Promise<CertificateAuthority> {
  const cert = join(o.certDir, 'etcd/ca.crt');
  const key = join(o.certDir, 'etcd/ca.key');
  if (existsSync(cert) && existsSync(key)) {
    o.log('[certs] Using existing etcd/ca certificate authority');
    return { certPem: readFileSync(cert, 'utf8'), keyPem: readFileSync(key, 'utf8') };
  }
  o.log('[certs] Generating "etcd/ca" certificate and key');
  const ca = await createCA({ commonName: 'etcd-ca', days: CA_DAYS });
  await writeFileAtomic(key, ca.keyPem, 0o600);
  await writeFileAtomic(cert, ca.certPem, 0o644);
  return ca;
}

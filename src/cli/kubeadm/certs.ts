/**
 * init's certs phase: the cluster PKI in kubeadm's layout under --cert-dir.
 * ca, apiserver, apiserver-kubelet-client and sa come from src/pki's
 * ensureClusterPKI (the same files `k8ts server` checks and reuses at start);
 * the front proxy CA and client certificate are kubeadm's own extra pair.
 */
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { etcdCertsPhase } from './etcd-certs.js';
import { ensureClusterPKI, certificateInfo, createCA, issueCertificate, writeFileAtomic, CA_DAYS, LEAF_DAYS, type ClusterPKI, type PKIComponent } from '../../pki/index.js';

export interface CertsOptions {
  certDir: string;
  dataDir: string;
  nodeName: string;
  advertiseAddress: string;
  /** First address of the service CIDR: the `kubernetes` Service's ClusterIP. */
  serviceIP: string;
  /** Where the API server stores: stacked etcd (its PKI is made here), external etcd (the user's files), or SQLite. */
  datastore: Datastore;
  /** More names of the API server's serving certificate: the control-plane endpoint's host (kubeadm's apiServer.certSANs + controlPlaneEndpoint). */
  extraHosts?: string[];
  log(line: string): void;
}

export type Datastore = 'etcd' | 'external-etcd' | 'sqlite';

export async function certsPhase(o: CertsOptions): Promise<ClusterPKI> {
  o.log(`[certs] Using certificateDir folder "${o.certDir}"`);
  const pki = await ensureClusterPKI(o.dataDir, { certDir: o.certDir, hosts: [o.nodeName, o.serviceIP, o.advertiseAddress, ...(o.extraHosts ?? [])] });
  const said = (c: PKIComponent, what: string) => o.log(pki.issued.includes(c) ? `[certs] Generating "${c}" ${what}` : `[certs] Using existing ${c} ${what === 'key and public key' ? 'keyless certificate authority' : 'certificate and key'} on disk`);
  said('ca', 'certificate and key');
  said('apiserver', 'certificate and key');
  const info = certificateInfo(pki.apiserverCertPem);
  o.log(`[certs] apiserver serving cert is signed for DNS names [${info.dnsNames.join(' ')}] and IPs [${info.ipAddresses.join(' ')}]`);
  said('apiserver-kubelet-client', 'certificate and key');
  await frontProxy(o);
  if (o.datastore === 'etcd') await etcdCertsPhase(o);
  else if (o.datastore === 'sqlite') o.log('[certs] External etcd mode: Skipping etcd/ca certificate authority generation (k8ts serves from SQLite)');
  else {
    // kubeadm's words when ClusterConfiguration names etcd.external: the user brings etcd's PKI.
    o.log('[certs] External etcd mode: Skipping etcd/ca certificate authority generation');
    for (const c of ['etcd/server', 'etcd/peer', 'etcd/healthcheck-client', 'apiserver-etcd-client']) o.log(`[certs] External etcd mode: Skipping ${c} certificate generation`);
  }
  if (pki.issued.includes('sa')) o.log('[certs] Generating "sa" key and public key');
  else o.log('[certs] Using the existing "sa" key');
  return pki;
}

/** front-proxy-ca and front-proxy-client (CN front-proxy-client), kept when present. */
async function frontProxy(o: CertsOptions): Promise<void> {
  const f = (name: string) => join(o.certDir, name);
  let ca: { certPem: string; keyPem: string };
  if (existsSync(f('front-proxy-ca.crt')) && existsSync(f('front-proxy-ca.key'))) {
    ca = { certPem: readFileSync(f('front-proxy-ca.crt'), 'utf8'), keyPem: readFileSync(f('front-proxy-ca.key'), 'utf8') };
    o.log('[certs] Using existing front-proxy-ca certificate authority');
  } else {
    ca = await createCA({ commonName: 'front-proxy-ca', days: CA_DAYS });
    await writeFileAtomic(f('front-proxy-ca.key'), ca.keyPem, 0o600);
    await writeFileAtomic(f('front-proxy-ca.crt'), ca.certPem, 0o644);
    o.log('[certs] Generating "front-proxy-ca" certificate and key');
  }
  if (existsSync(f('front-proxy-client.crt')) && existsSync(f('front-proxy-client.key'))) {
    o.log('[certs] Using existing front-proxy-client certificate and key on disk');
    return;
  }
  const client = await issueCertificate({ ca, commonName: 'front-proxy-client', usages: ['client'], days: LEAF_DAYS });
  await writeFileAtomic(f('front-proxy-client.key'), client.keyPem, 0o600);
  await writeFileAtomic(f('front-proxy-client.crt'), client.certPem, 0o644);
  o.log('[certs] Generating "front-proxy-client" certificate and key');
}

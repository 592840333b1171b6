/**
 * A kubelet's client credentials, as kubeadm writes kubelet.conf: a
 * certificate for CN system:node:<name>, O system:nodes, issued by the
 * cluster CA of a test cluster's data directory.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildKubeconfig, issueCertificate, writeKubeconfig } from '../../src/pki/index.js';
import type { Cluster } from './harness.js';

export async function nodeKubeconfig(cluster: Cluster, nodeName: string): Promise<string> {
  const pki = join(cluster.dataDir, 'pki');
  const ca = { certPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(pki, 'ca.key'), 'utf8') };
  const { certPem, keyPem } = await issueCertificate({
    ca, commonName: `system:node:${nodeName}`, organizations: ['system:nodes'], usages: ['client'], days: 1,
  });
  const path = join(cluster.dataDir, `kubelet-${nodeName}.conf`);
  await writeKubeconfig(path, buildKubeconfig({
    server: cluster.url, caCertPem: ca.certPem, userName: `system:node:${nodeName}`, clientCertPem: certPem, clientKeyPem: keyPem,
  }));
  return path;
}

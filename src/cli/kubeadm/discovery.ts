/**
 * Token discovery for join: read the cluster-info ConfigMap (kube-public)
 * without credentials and trust its CA only if its public key hash is one of
 * --discovery-token-ca-cert-hash (or --discovery-token-unsafe-skip-ca-verification).
 *
 * TEMPORARY: the JWS check of cluster-info with the token (kubeadm's
 * "could not find a JWS signature ... for token ID") belongs to the
 * bootstrap-token work ("tokens"); join switches to its discovery once it lands.
 */
import https from 'node:https';
import { parse } from 'yaml';
import { caCertHash } from '../../pki/index.js';

export interface DiscoveryOptions {
  endpoint: string;
  token: string;
  caCertHashes: string[];
  unsafeSkipCAVerification: boolean;
  timeoutMs: number;
}

export interface ClusterInfo { server: string; caCertPem: string }

function getInsecure(url: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(`${url}?timeout=10s`, { rejectUnauthorized: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('Client.Timeout exceeded while awaiting headers')));
    req.on('error', (e: NodeJS.ErrnoException) => reject(new Error(`Get "${url}?timeout=10s": ${e.code === 'ECONNREFUSED' ? `dial tcp ${e.message.replace(/^connect ECONNREFUSED /, '')}: connect: connection refused` : e.message}`)));
  });
}

export async function discoverClusterInfo(o: DiscoveryOptions): Promise<ClusterInfo> {
  if (!o.unsafeSkipCAVerification && o.caCertHashes.length === 0) {
    throw new Error('discovery.bootstrapToken: Invalid value: "": using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue');
  }
  const url = `https://${o.endpoint}/api/v1/namespaces/kube-public/configmaps/cluster-info`;
  let res: { status: number; body: string };
  try {
    res = await getInsecure(url, o.timeoutMs);
  } catch (e) {
    throw new Error(`couldn't validate the identity of the API Server: ${(e as Error).message}`);
  }
  if (res.status !== 200) throw new Error(`couldn't validate the identity of the API Server: cluster-info: the server answered ${res.status}: ${res.body.slice(0, 200)}`);
  const cm = JSON.parse(res.body) as { data?: Record<string, string> };
  const kubeconfig = parse(cm.data?.kubeconfig ?? '') as { clusters?: Array<{ cluster?: { server?: string; 'certificate-authority-data'?: string } }> } | null;
  const cluster = kubeconfig?.clusters?.[0]?.cluster;
  if (!cluster?.server || !cluster['certificate-authority-data']) throw new Error('couldn\'t validate the identity of the API Server: the cluster-info ConfigMap has no cluster with a server and a CA');
  const caCertPem = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
  const hash = caCertHash(caCertPem);
  if (!o.unsafeSkipCAVerification && !o.caCertHashes.includes(hash)) {
    throw new Error(`cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${hash}" are pinned`);
  }
  return { server: cluster.server, caCertPem };
}

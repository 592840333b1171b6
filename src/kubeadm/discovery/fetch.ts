/**
 * Reads ConfigMap kube-public/cluster-info as a client that has no
 * credentials: first trusting any server certificate (nothing is known
 * yet), then trusting only the CA that discovery validated. Failures are
 * worded the way client-go reports them, since kubeadm quotes those words.
 */
import https from 'node:https';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { clusterInfoConfigMap, clusterInfoNamespace } from '../../api/bootstraptoken/index.js';

/** client-go's per-request timeout in kubeadm's discovery client. */
const requestTimeoutMs = 10_000;

export interface FetchTrust {
  /** PEM bundle the server certificate must chain to; absent: no verification (the first, insecure read). */
  caPem?: string;
}

/** Go's net/http words for a failed request. */
function goNetError(url: string, hostPort: string, err: NodeJS.ErrnoException): string {
  const byCode: Record<string, string> = {
    ECONNREFUSED: `dial tcp ${hostPort}: connect: connection refused`,
    EHOSTUNREACH: `dial tcp ${hostPort}: connect: no route to host`,
    ENETUNREACH: `dial tcp ${hostPort}: connect: network is unreachable`,
    ENOTFOUND: `dial tcp: lookup ${hostPort.replace(/:\d+$/, '')}: no such host`,
    ETIMEDOUT: 'net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)',
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls: failed to verify certificate: x509: certificate signed by unknown authority',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'tls: failed to verify certificate: x509: certificate signed by unknown authority',
    SELF_SIGNED_CERT_IN_CHAIN: 'tls: failed to verify certificate: x509: certificate signed by unknown authority',
    ERR_TLS_CERT_ALTNAME_INVALID: `tls: failed to verify certificate: x509: certificate is valid for other names, not ${hostPort.replace(/:\d+$/, '')}`,
  };
  return `Get "${url}": ${byCode[err.code ?? ''] ?? err.message}`;
}

/** One GET of cluster-info from `endpoint` (HOST:PORT); throws with client-go's message when it fails. */
export function fetchClusterInfo(endpoint: string, trust: FetchTrust): Promise<ConfigMap> {
  const url = `https://${endpoint}/api/v1/namespaces/${clusterInfoNamespace}/configmaps/${clusterInfoConfigMap}?timeout=10s`;
  return new Promise((resolve, reject) => {
    const req = https.get(url, {
      headers: { Accept: 'application/json', 'User-Agent': 'k8ts-join' },
      rejectUnauthorized: trust.caPem !== undefined, ca: trust.caPem, agent: false,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => reject(new Error(goNetError(url, endpoint, e))));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: any;
        try { body = JSON.parse(text); } catch { body = undefined; }
        const code = res.statusCode ?? 0;
        if (code >= 200 && code < 300 && body?.kind === 'ConfigMap') { resolve(body as ConfigMap); return; }
        // client-go surfaces a Status's message; a 401 without one reads "Unauthorized".
        const message = body?.kind === 'Status' && body.message ? body.message : code === 401 ? 'Unauthorized' : `the server responded with status ${code}`;
        reject(new Error(message));
      });
    });
    req.setTimeout(requestTimeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (e: NodeJS.ErrnoException) => reject(new Error(goNetError(url, endpoint, e))));
  });
}

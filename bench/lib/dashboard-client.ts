/** What the dashboard benchmarks share: percentiles as they report them, and a pod create as the admin. */
import https from 'node:https';
import type { adminCredentials } from '../../test/e2e/helpers.js';

/** Nearest-rank percentile. */
export const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]; };
export const ms = (x: number) => `${x.toFixed(0)} ms`;

/** POSTs a one-container busybox pod in default with the admin's client certificate; resolves on 201. */
export function createPod(server: string, creds: ReturnType<typeof adminCredentials>, name: string): Promise<void> {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  return new Promise((resolve, reject) => {
    const req = https.request(new URL('/api/v1/namespaces/default/pods', server), {
      method: 'POST', ca: creds.ca, cert: creds.cert, key: creds.key, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
    }, (res) => { res.resume(); res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`create ${name}: ${res.statusCode}`)))); });
    req.on('error', reject);
    req.end(body);
  });
}

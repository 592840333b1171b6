/**
 * The kubelet's client certificate store in --cert-dir (upstream
 * k8s.io/client-go/util/certificate FileStore): each certificate is written
 * with its key as kubelet-client-<YYYY-MM-DD-HH-MM-SS>.pem, and the symlink
 * kubelet-client-current.pem is switched to it atomically; the kubeconfig the
 * bootstrap writes points at that symlink, so it always names the live pair.
 * Readers never see a half-written pair: the pair and the link are both
 * switched by rename.
 * The key of a request still waiting for its certificate is kept in
 * kubelet-client.key.tmp, so a restarted kubelet asks again with the same key
 * (and finds the same node-csr-<digest> request).
 */
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import type { ClientConfig } from '../../client/index.js';

export const currentFileName = 'kubelet-client-current.pem';
const pendingKeyFileName = 'kubelet-client.key.tmp';

const stamp = (d: Date) => d.toISOString().slice(0, 19).replace(/[T:]/g, '-');

export class ClientCertificateStore {
  readonly dir: string;

  constructor(certDir: string) {
    this.dir = resolve(certDir);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  get currentPath(): string { return join(this.dir, currentFileName); }

  /** The current certificate and key, or undefined when there is none. */
  current(): { certPem: string; keyPem: string } | undefined {
    let pem: string;
    try { pem = readFileSync(this.currentPath, 'utf8'); } catch { return undefined; }
    const certPem = (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/g) ?? []).join('');
    const keyPem = pem.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----\n?/)?.[0] ?? '';
    return certPem && keyPem ? { certPem, keyPem } : undefined;
  }

  /** Writes the pair and points kubelet-client-current.pem at it; returns the current path. */
  update(certPem: string, keyPem: string, now = new Date()): string {
    const file = join(this.dir, `kubelet-client-${stamp(now)}.pem`);
    // Two renewals in one second share a name: the file too is replaced by a rename, never rewritten in place.
    const tmpFile = `${file}.${process.pid}.tmp`;
    writeFileSync(tmpFile, `${certPem.trimEnd()}\n${keyPem.trimEnd()}\n`, { mode: 0o600 });
    renameSync(tmpFile, file);
    const tmpLink = join(this.dir, `.${currentFileName}.${process.pid}`);
    rmSync(tmpLink, { force: true });
    symlinkSync(file, tmpLink);
    renameSync(tmpLink, this.currentPath);
    return this.currentPath;
  }

  /** The key of a pending bootstrap request, made once and reused across restarts. */
  pendingKey(generate: () => string): string {
    const path = join(this.dir, pendingKeyFileName);
    try { return readFileSync(path, 'utf8'); } catch { /* none yet */ }
    const keyPem = generate();
    writeFileSync(path, keyPem, { mode: 0o600 });
    return keyPem;
  }

  clearPendingKey(): void { rmSync(join(this.dir, pendingKeyFileName), { force: true }); }
}

/** The kubeconfig the bootstrap leaves at --kubeconfig: the bootstrap's server and CA, the store's current pair. */
export function writeNodeKubeconfig(path: string, cluster: ClientConfig, certPath: string): void {
  const clusterEntry: Record<string, unknown> = { server: cluster.server };
  if (cluster.caPem) clusterEntry['certificate-authority-data'] = Buffer.from(cluster.caPem).toString('base64');
  if (cluster.insecureSkipTLSVerify) clusterEntry['insecure-skip-tls-verify'] = true;
  const doc = {
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'default-cluster', cluster: clusterEntry }],
    contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', namespace: 'default', user: 'default-auth' } }],
    'current-context': 'default-context',
    users: [{ name: 'default-auth', user: { 'client-certificate': certPath, 'client-key': certPath } }],
  };
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, stringify(doc), { mode: 0o600 });
  renameSync(tmp, path);
}

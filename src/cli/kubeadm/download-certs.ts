/**
 * join --control-plane's download-certs phase (kubeadm's copycerts.DownloadCerts):
 * the Secret kube-system/kubeadm-certs read with the bootstrap token (init's
 * upload-certs binds its group to a Role that may get it), each value
 * AES-256-GCM-decrypted with --certificate-key and written under the cert dir
 * ("etcd-ca.crt" is etcd/ca.crt). Every value is decrypted before any file
 * is written, so a wrong key leaves nothing behind.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Secret } from 'kubernetes-types/core/v1.js';
import { isNotFound, type Clientset } from '../../client/index.js';
import { writeFileAtomic } from '../../pki/index.js';
import { KUBEADM_CERTS_SECRET, certsToTransfer, decryptWithKey } from './upload-certs.js';

/** The certificate key's own check (kubeadm decodes it as hex, an AES-256 key). */
export function validateCertificateKey(key: string): string | undefined {
  if (!/^[0-9a-fA-F]*$/.test(key) || key.length % 2 !== 0) return `error decoding certificate key: encoding/hex: invalid byte in "${key}"`;
  if (key.length !== 64) return `error decoding certificate key: crypto/aes: invalid key size ${key.length / 2}`;
  return undefined;
}

export async function downloadCertsPhase(clients: Clientset, o: { certDir: string; certificateKey: string; log(line: string): void }): Promise<string[]> {
  o.log(`[download-certs] Downloading the certificates in Secret "${KUBEADM_CERTS_SECRET}" in the "kube-system" Namespace`);
  let secret: Secret;
  try {
    secret = await clients.resource('secrets').get('kube-system', KUBEADM_CERTS_SECRET) as Secret;
  } catch (e) {
    if (isNotFound(e)) {
      throw new Error(`error downloading certs: error downloading the secret: Secret "${KUBEADM_CERTS_SECRET}" was not found in the "kube-system" Namespace. `
        + 'This Secret might have expired. Please, run `k8ts init --upload-certs` on a new cluster or copy the certificates by hand');
    }
    throw new Error(`error downloading certs: error downloading the secret: ${(e as Error).message}`);
  }
  const files: Array<[string, Buffer]> = [];
  for (const [key, path] of Object.entries(certsToTransfer(o.certDir))) {
    const sealed = secret.data?.[key];
    if (sealed === undefined) continue;
    try {
      files.push([path, decryptWithKey(Buffer.from(sealed, 'base64'), o.certificateKey)]);
    } catch {
      throw new Error('error downloading certs: error decoding secret data with provided key: cipher: message authentication failed');
    }
  }
  o.log(`[download-certs] Saving the certificates to the folder: "${o.certDir}"`);
  const written: string[] = [];
  for (const [path, data] of files) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    await writeFileAtomic(path, data.toString('utf8'), path.endsWith('.key') ? 0o600 : 0o644);
    written.push(path);
  }
  return written;
}

/** The shared files a control plane needs when no certificate key is given (copied by hand, as kubeadm's docs say). */
export function sharedCertsPresent(certDir: string, exists: (p: string) => boolean): string | undefined {
  for (const f of ['ca.crt', 'ca.key', 'sa.key', 'sa.pub', 'front-proxy-ca.crt', 'front-proxy-ca.key', 'etcd/ca.crt', 'etcd/ca.key']) {
    if (!exists(join(certDir, f))) return join(certDir, f);
  }
  return undefined;
}

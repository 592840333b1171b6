/**
 * init's upload-certs phase (kubeadm's copycerts.UploadCerts): the control
 * plane's shared keys — the cluster CA, the service-account key pair, the
 * front-proxy CA and etcd's CA (or the external etcd's files) — stored in the
 * Secret kube-system/kubeadm-certs, each value AES-256-GCM-encrypted with the
 * certificate key (the nonce first, as Go's gcm.Seal(nonce, nonce, ...)
 * lays it out), so only a holder of the key printed by init can read them.
 * As kubeadm, the Secret is owned by a bootstrap token that lives 2 hours
 * ("Proxy for managing TTL for the kubeadm-certs secret"): when the token
 * cleaner deletes the token, the garbage collector deletes the Secret; and
 * Role/RoleBinding kubeadm:kubeadm-certs let the default node token's group
 * read it.
 *
 * Its reader is join --control-plane's download-certs phase (download-certs.ts).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Secret } from 'kubernetes-types/core/v1.js';
import type { Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { Clientset } from '../../client/index.js';
import { bootstrapTokenToSecret, generateBootstrapToken, newBootstrapTokenString, nodeBootstrapTokenAuthGroup } from '../../api/bootstraptoken/index.js';
import { createOrUpdate, resourceClient } from '../../kubeadm/apiclient.js';

export const KUBEADM_CERTS_SECRET = 'kubeadm-certs';
const ROLE = 'kubeadm:kubeadm-certs';
const TOKEN_TTL_MS = 2 * 60 * 60 * 1000;

/** kubeadm's CreateCertificateKey: 32 random bytes, hex. */
export const generateCertificateKey = (): string => randomBytes(32).toString('hex');

export function encryptWithKey(data: Buffer, keyHex: string): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), nonce);
  return Buffer.concat([nonce, cipher.update(data), cipher.final(), cipher.getAuthTag()]);
}

export function decryptWithKey(data: Buffer, keyHex: string): Buffer {
  const nonce = data.subarray(0, 12);
  const tag = data.subarray(data.length - 16);
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), nonce);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]);
}

/** The files kubeadm copies (certsToTransfer), as paths under the cert dir; "/" becomes "-" in the Secret's keys. */
export function certsToTransfer(certDir: string, externalEtcd?: { caFile?: string; certFile?: string; keyFile?: string }): Record<string, string> {
  const files: Record<string, string> = {};
  for (const f of ['ca.crt', 'ca.key', 'front-proxy-ca.crt', 'front-proxy-ca.key', 'sa.key', 'sa.pub', 'etcd/ca.crt', 'etcd/ca.key']) {
    files[f.replace(/\//g, '-')] = join(certDir, f);
  }
  if (externalEtcd) {
    delete files['etcd-ca.crt'];
    delete files['etcd-ca.key'];
    if (externalEtcd.caFile) files['external-etcd-ca.crt'] = externalEtcd.caFile;
    if (externalEtcd.certFile) files['external-etcd.crt'] = externalEtcd.certFile;
    if (externalEtcd.keyFile) files['external-etcd.key'] = externalEtcd.keyFile;
  }
  return files;
}

export async function uploadCertsPhase(clients: Clientset, o: {
  certDir: string; certificateKey: string; externalEtcd?: { caFile?: string; certFile?: string; keyFile?: string }; log(line: string): void;
}): Promise<void> {
  o.log(`[upload-certs] Storing the certificates in Secret "${KUBEADM_CERTS_SECRET}" in the "kube-system" Namespace`);
  const token = bootstrapTokenToSecret({
    token: newBootstrapTokenString(generateBootstrapToken()), description: 'Proxy for managing TTL for the kubeadm-certs secret', ttlMs: TOKEN_TTL_MS,
    usages: [], groups: [],
  }, new Date());
  const owner = await resourceClient(clients, 'secrets').create('kube-system', token) as Secret;
  const data: Record<string, string> = {};
  for (const [key, path] of Object.entries(certsToTransfer(o.certDir, o.externalEtcd))) {
    if (existsSync(path)) data[key] = encryptWithKey(readFileSync(path), o.certificateKey).toString('base64');
  }
  const secret: Secret = {
    apiVersion: 'v1', kind: 'Secret', type: 'Opaque',
    metadata: {
      name: KUBEADM_CERTS_SECRET, namespace: 'kube-system',
      ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: owner.metadata!.name!, uid: owner.metadata!.uid!, controller: true, blockOwnerDeletion: true }],
    },
    data,
  };
  await createOrUpdate(clients, 'secrets', secret);
  const role: Role = {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: ROLE, namespace: 'kube-system' },
    rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: [KUBEADM_CERTS_SECRET], verbs: ['get'] }],
  };
  const binding: RoleBinding = {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: ROLE, namespace: 'kube-system' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: ROLE },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: nodeBootstrapTokenAuthGroup }],
  };
  await createOrUpdate(clients, 'roles', role);
  await createOrUpdate(clients, 'rolebindings', binding);
  o.log('[upload-certs] Using certificate key:');
  o.log(o.certificateKey);
}

/**
 * Who is calling the kubelet: a client certificate that OpenSSL verified
 * against the client CA bundle at the handshake (kubelet --client-ca-file;
 * by default the cluster CA from the agent's kubeconfig). User = CN, groups
 * = O. Anyone else is anonymous, and the kubelet refuses anonymous callers
 * (upstream with --anonymous-auth=false, as kubeadm configures it: 401
 * "Unauthorized"). Every authenticated user may do everything — upstream
 * asks the API server (SubjectAccessReview, authorization mode Webhook);
 * k8ts has no authorization yet.
 */
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { pemBlocks, subjectOf } from '../../pki/index.js';

export interface KubeletUser { name: string; groups: string[] }

export function createClientCertAuthenticator(clientCAPem: string): (req: IncomingMessage) => KubeletUser | undefined {
  const cas = pemBlocks(clientCAPem).map((pem) => new X509Certificate(pem));
  if (cas.length === 0) throw new Error('kubelet: the client CA bundle holds no certificate');
  return (req) => {
    const socket = req.socket as Partial<TLSSocket>;
    if (!socket.authorized || typeof socket.getPeerX509Certificate !== 'function') return undefined;
    const cert = socket.getPeerX509Certificate();
    if (!cert || Date.parse(cert.validTo) < Date.now()) return undefined;
    if (!cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey))) return undefined;
    const { commonName, organizations } = subjectOf(cert);
    return commonName ? { name: commonName, groups: organizations } : undefined;
  };
}

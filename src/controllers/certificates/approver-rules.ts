/**
 * The requests csrapproving recognizes (upstream
 * pkg/controller/certificates/approver/sarapprove.go), in upstream's order:
 * - selfnodeclient: a kubelet renewing its own client certificate, the
 *   requester being the node the certificate names (spec.username equals
 *   the request's common name);
 * - nodeclient: any kubelet client certificate request, as a node's
 *   bootstrap (token) identity sends.
 * Each is approved only when a SubjectAccessReview says the requester may
 * `create` certificatesigningrequests/<subresource> in certificates.k8s.io.
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { kubeAPIServerClientKubeletSignerName, validateKubeletClientCSR, type RequestedSubject } from '../../api/csr.js';

export interface CSRRecognizer {
  recognize(csr: CertificateSigningRequest, req: RequestedSubject): boolean;
  subresource: 'selfnodeclient' | 'nodeclient';
  successMessage: string;
}

export function isNodeClientCert(csr: CertificateSigningRequest, req: RequestedSubject): boolean {
  if (csr.spec.signerName !== kubeAPIServerClientKubeletSignerName) return false;
  return validateKubeletClientCSR(req, csr.spec.usages ?? []) === undefined;
}

export function isSelfNodeClientCert(csr: CertificateSigningRequest, req: RequestedSubject): boolean {
  if (csr.spec.username !== req.commonName) return false;
  return isNodeClientCert(csr, req);
}

export const recognizers: CSRRecognizer[] = [
  { recognize: isSelfNodeClientCert, subresource: 'selfnodeclient', successMessage: 'Auto approving self kubelet client certificate after SubjectAccessReview.' },
  { recognize: isNodeClientCert, subresource: 'nodeclient', successMessage: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
];

/** The SubjectAccessReview that asks whether the requester may use a recognizer's path. */
export function subjectAccessReviewFor(csr: CertificateSigningRequest, subresource: string): object {
  return {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
    spec: {
      user: csr.spec.username, uid: csr.spec.uid, groups: csr.spec.groups, extra: csr.spec.extra,
      resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource, version: '*' },
    },
  };
}

/**
 * CertificateSigningRequest helpers shared by the CSR controllers and the
 * kubelet's TLS bootstrap (upstream pkg/controller/certificates/certificate_controller_utils.go
 * and pkg/apis/certificates/helpers.go): signer names, conditions, and the
 * rules for kubelet client and serving requests.
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';

export const kubeAPIServerClientSignerName = 'kubernetes.io/kube-apiserver-client';
export const kubeAPIServerClientKubeletSignerName = 'kubernetes.io/kube-apiserver-client-kubelet';
export const kubeletServingSignerName = 'kubernetes.io/kubelet-serving';

export const hasTrueCondition = (csr: CertificateSigningRequest, type: string): boolean =>
  (csr.status?.conditions ?? []).some((c) => c.type === type && (c.status === 'True' || !c.status));

/** GetCertApprovalCondition. */
export function certApprovalCondition(csr: CertificateSigningRequest): { approved: boolean; denied: boolean } {
  let approved = false;
  let denied = false;
  for (const c of csr.status?.conditions ?? []) {
    if (c.type === 'Approved') approved = true;
    if (c.type === 'Denied') denied = true;
  }
  return { approved, denied };
}

/** IsCertificateRequestApproved: approved and not denied. */
export function isCertificateRequestApproved(csr: CertificateSigningRequest): boolean {
  const { approved, denied } = certApprovalCondition(csr);
  return approved && !denied;
}

/** What the kubelet rules read of a parsed request (Go's x509.CertificateRequest). */
export interface RequestedSubject {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
}

const sameSet = (a: string[], b: string[]) => new Set(a).size === b.length && b.every((u) => a.includes(u));

const kubeletClientUsages = ['client auth', 'digital signature', 'key encipherment'];
const kubeletClientUsagesNoRSA = ['client auth', 'digital signature'];
const kubeletServingUsages = ['digital signature', 'key encipherment', 'server auth'];
const kubeletServingUsagesNoRSA = ['digital signature', 'server auth'];

/** ValidateKubeletClientCSR: undefined when `req` with `usages` is a kubelet client request; else upstream's error. */
export function validateKubeletClientCSR(req: RequestedSubject, usages: string[]): string | undefined {
  if (req.organizations.length !== 1 || req.organizations[0] !== 'system:nodes') return 'subject organization is not system:nodes';
  if (req.dnsNames.length) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length) return 'IP subjectAltNames are not allowed';
  if (req.uris.length) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, kubeletClientUsages) && !sameSet(usages, kubeletClientUsagesNoRSA)) return `usages did not match [${kubeletClientUsages.join(' ')}]`;
  return undefined;
}

/** ValidateKubeletServingCSR. */
export function validateKubeletServingCSR(req: RequestedSubject, usages: string[]): string | undefined {
  if (req.organizations.length !== 1 || req.organizations[0] !== 'system:nodes') return 'subject organization is not system:nodes';
  if (!req.dnsNames.length && !req.ipAddresses.length) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (req.uris.length) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, kubeletServingUsages) && !sameSet(usages, kubeletServingUsagesNoRSA)) return `usages did not match [${kubeletServingUsages.join(' ')}]`;
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  return undefined;
}

/**
 * Which requests the CSR signing controller signs (upstream
 * pkg/controller/certificates/signer/signer.go): one signer per well-known
 * kubernetes.io signer name, each checking the request before signing.
 * Returns `recognized: false` for requests of other signers (left alone) and
 * an error for a request of ours that breaks the signer's rules (it gets a
 * Failed condition with reason SignerValidationFailure).
 */
import {
  kubeAPIServerClientKubeletSignerName, kubeAPIServerClientSignerName, kubeletServingSignerName,
  validateKubeletClientCSR, validateKubeletServingCSR, type RequestedSubject,
} from '../../api/csr.js';

export const signedSignerNames = [kubeAPIServerClientSignerName, kubeAPIServerClientKubeletSignerName, kubeletServingSignerName];

export type SignerCheck = { recognized: false } | { recognized: true; error?: string };

/** validAPIServerClientUsages: client auth required; digital signature and key encipherment optional; nothing else. */
export function validAPIServerClientUsages(usages: string[]): string | undefined {
  let hasClientAuth = false;
  for (const u of usages) {
    if (u === 'client auth') hasClientAuth = true;
    else if (u !== 'digital signature' && u !== 'key encipherment') return `invalid usage for client certificate: ${u}`;
  }
  return hasClientAuth ? undefined : 'missing required usage for client certificate: client auth';
}

export function checkRequestForSigner(signerName: string, req: RequestedSubject, usages: string[]): SignerCheck {
  switch (signerName) {
    case kubeletServingSignerName: return { recognized: true, error: validateKubeletServingCSR(req, usages) };
    case kubeAPIServerClientKubeletSignerName: return { recognized: true, error: validateKubeletClientCSR(req, usages) };
    case kubeAPIServerClientSignerName: return { recognized: true, error: validAPIServerClientUsages(usages) };
    default: return { recognized: false };
  }
}

/**
 * Stamps a new CertificateSigningRequest with who asked for it: upstream's
 * CSR strategy PrepareForCreate copies user.Info from the request context
 * into spec.username, uid, groups and extra (the strategy has already cleared
 * whatever the client sent). Approvers decide on these fields
 * (csrapproving's SubjectAccessReview), so only the server may write them.
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import type { RequestContext } from '../request-context.js';

export function admitCSRRequester(op: 'create' | 'update', info: ResourceInfo, csr: CertificateSigningRequest, ctx?: RequestContext): void {
  if (op !== 'create' || info.group !== 'certificates.k8s.io' || info.plural !== 'certificatesigningrequests') return;
  const user = ctx?.user;
  if (!user || !csr.spec) return;
  csr.spec.username = user.name;
  if (user.uid) csr.spec.uid = user.uid;
  if (user.groups.length) csr.spec.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) csr.spec.extra = structuredClone(user.extra);
}

/**
 * AdmissionReview v1 in and out, as upstream's admission/plugin/webhook/request
 * (CreateV1AdmissionReview, VerifyAdmissionResponse): the request carries the
 * attributes of the call; the response must be an admission.k8s.io/v1
 * AdmissionReview with the request's uid, and a patch only from a mutating
 * webhook, with patchType JSONPatch.
 */
import { randomUUID } from 'node:crypto';
import type { AdmissionAttributes } from './attributes.js';
import { CallError } from './client.js';

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code?: number; message?: string; reason?: string; status?: string; details?: unknown; metadata?: unknown };
  patch?: string;
  patchType?: string;
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

export function admissionRequest(a: AdmissionAttributes): Record<string, unknown> {
  const gvk = { group: a.info.group, version: a.info.version, kind: a.info.kind };
  const gvr = { group: a.info.group, version: a.info.version, resource: a.info.plural };
  const user = a.user;
  const userInfo: Record<string, unknown> = user ? { username: user.name, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups, ...(user.extra ? { extra: user.extra } : {}) } : {};
  const req: Record<string, unknown> = {
    uid: randomUUID(), kind: gvk, resource: gvr, ...(a.subresource ? { subResource: a.subresource } : {}),
    requestKind: gvk, requestResource: gvr, ...(a.subresource ? { requestSubResource: a.subresource } : {}),
    ...(a.name ? { name: a.name } : {}), ...(a.namespace ? { namespace: a.namespace } : {}),
    operation: a.operation, userInfo, object: a.object ?? null, oldObject: a.oldObject ?? null, dryRun: a.dryRun,
    options: a.options ?? null,
  };
  return req;
}

export const admissionReviewBody = (request: Record<string, unknown>) =>
  JSON.stringify({ kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request });

/** The response of a decoded review; throws CallError with upstream's reason when it is not usable. */
export function verifyAdmissionResponse(uid: string, mutating: boolean, review: unknown): AdmissionResponse {
  const invalid = (why: string) => new CallError(`received invalid webhook response: ${why}`);
  const r = review as { apiVersion?: string; kind?: string; response?: AdmissionResponse } | null;
  if (r?.apiVersion !== 'admission.k8s.io/v1' || r?.kind !== 'AdmissionReview') {
    throw invalid(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${r?.apiVersion ?? ''}, Kind=${r?.kind ?? ''}`);
  }
  const res = r.response;
  if (!res) throw invalid('webhook response was absent');
  if (res.uid !== uid) throw invalid(`expected response.uid="${uid}", got "${res.uid ?? ''}"`);
  if (res.patch !== undefined && res.patch !== null && res.patch !== '') {
    if (!mutating) throw invalid('validating webhook may not return response.patch');
    if (!res.patchType) throw invalid('webhook returned response.patch but not response.patchType');
    if (res.patchType !== 'JSONPatch') throw invalid(`webhook returned invalid response.patchType of "${res.patchType}"`);
  } else if (res.patchType) {
    throw invalid('webhook returned response.patchType but not response.patch');
  }
  return { ...res, allowed: res.allowed === true };
}

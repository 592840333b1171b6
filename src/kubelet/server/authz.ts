/**
 * The kubelet's authorizer in mode Webhook (kubeadm's configuration; upstream
 * k8s.io/apiserver plugin/pkg/authorizer/webhook): each request's attributes
 * (attributes.ts) become a SubjectAccessReview for the caller, sent to the
 * API server with the kubelet's credentials. The answer is cached by the
 * review's spec: allowed for 5 minutes, anything else for 30 seconds
 * (--authorization-webhook-cache-authorized-ttl / -unauthorized-ttl
 * defaults), in a bounded cache. A review that cannot be made rejects: the
 * filter answers 500, never an allow.
 */
import type { SubjectAccessReviewSpec } from 'kubernetes-types/authorization/v1.js';
import type { KubeletRequestAttributes } from './attributes.js';
import { ExpiringCache, type Clock } from './expiring-cache.js';
import type { KubeletReviewer } from './reviews.js';

export const authorizedTTLMs = 5 * 60_000;
export const unauthorizedTTLMs = 30_000;
const cacheSize = 8192;

export type KubeletAuthorizer = (a: KubeletRequestAttributes) => Promise<boolean>;

export function subjectAccessReviewSpec(a: KubeletRequestAttributes): SubjectAccessReviewSpec {
  return {
    user: a.user.name,
    ...(a.user.uid ? { uid: a.user.uid } : {}),
    groups: a.user.groups,
    ...(a.user.extra ? { extra: a.user.extra } : {}),
    resourceAttributes: { verb: a.verb, version: 'v1', resource: 'nodes', subresource: a.subresource, name: a.nodeName },
  };
}

export function createWebhookAuthorizer(reviewer: KubeletReviewer, now: Clock = Date.now): KubeletAuthorizer {
  const cache = new ExpiringCache<boolean>(cacheSize, now);
  return (a) => {
    const spec = subjectAccessReviewSpec(a);
    return cache.getOrLoad(JSON.stringify(spec), async () => {
      const review = await reviewer.subjectAccessReview({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });
      return review.status?.allowed === true;
    }, (allowed) => (allowed ? authorizedTTLMs : unauthorizedTTLMs));
  };
}

/**
 * How the kubelet asks the API server about its callers, with its own
 * credentials (upstream's kubelet builds both webhooks from its kubeconfig):
 * a TokenReview says who a bearer token belongs to, a SubjectAccessReview
 * whether that user may do something. Transient failures are retried with
 * upstream's webhook back-off (retry.ts); either rejects when the API server
 * cannot be reached or refuses the review itself.
 */
import type { TokenReview } from 'kubernetes-types/authentication/v1.js';
import type { SubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
import { ResourceClient, type Clientset } from '../../client/index.js';
import { withWebhookRetry } from './retry.js';

export interface KubeletReviewer {
  tokenReview(review: TokenReview): Promise<TokenReview>;
  subjectAccessReview(review: SubjectAccessReview): Promise<SubjectAccessReview>;
}

const tokenReviews = { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', namespaced: false };
const subjectAccessReviews = { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', namespaced: false };

/** The reviews sent with the clientset's credentials (the kubelet's kubeconfig). */
export function reviewerFor(clients: Clientset): KubeletReviewer {
  const tokens = new ResourceClient(clients.rest, tokenReviews);
  const access = new ResourceClient(clients.rest, subjectAccessReviews);
  return withWebhookRetry({
    tokenReview: (review) => tokens.create(undefined, review) as Promise<TokenReview>,
    subjectAccessReview: (review) => access.create(undefined, review) as Promise<SubjectAccessReview>,
  });
}

/**
 * Secret-based ("legacy") service-account tokens (upstream
 * pkg/serviceaccount/legacy.go, v1.32): a Secret of type
 * kubernetes.io/service-account-token that names its ServiceAccount in the
 * `kubernetes.io/service-account.name` annotation gets, from the tokens
 * controller, a JWT that never expires, signed with the service-account key:
 *  1. issuer `kubernetes/serviceaccount`, subject
 *     `system:serviceaccount:<ns>:<name>`, and four private claims naming the
 *     namespace, the Secret and the ServiceAccount (name and uid); no
 *     audience, expiry or jti;
 *  2. the Secret also gets the cluster's CA (`ca.crt`) and `namespace`, and
 *     the ServiceAccount's uid in the `kubernetes.io/service-account.uid`
 *     annotation.
 */
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';

export const legacyTokenIssuer = 'kubernetes/serviceaccount';
export const serviceAccountTokenSecretType = 'kubernetes.io/service-account-token';
export const serviceAccountNameAnnotation = 'kubernetes.io/service-account.name';
export const serviceAccountUIDAnnotation = 'kubernetes.io/service-account.uid';

export const legacyClaimNames = {
  namespace: 'kubernetes.io/serviceaccount/namespace',
  secretName: 'kubernetes.io/serviceaccount/secret.name',
  serviceAccountName: 'kubernetes.io/serviceaccount/service-account.name',
  serviceAccountUID: 'kubernetes.io/serviceaccount/service-account.uid',
} as const;

/** Rule 1, keys in the order go-jose writes them (sorted). */
export function legacyTokenClaims(sa: ServiceAccount, secret: Secret): Record<string, string> {
  const namespace = sa.metadata?.namespace ?? '';
  return {
    iss: legacyTokenIssuer,
    [legacyClaimNames.namespace]: namespace,
    [legacyClaimNames.secretName]: secret.metadata?.name ?? '',
    [legacyClaimNames.serviceAccountName]: sa.metadata?.name ?? '',
    [legacyClaimNames.serviceAccountUID]: sa.metadata?.uid ?? '',
    sub: `system:serviceaccount:${namespace}:${sa.metadata?.name ?? ''}`,
  };
}

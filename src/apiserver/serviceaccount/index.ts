/** Service-account tokens: signing, claims, TokenRequest; the authenticator is auth/serviceaccount-token.ts. */
import type { Lister } from '../../registry/lister.js';
import type { Registry } from '../../registry/registry.js';
import { signingKey, verifyingKey, type VerifyingKey } from '../../api/serviceaccount-jwt.js';
import type { BoundResource, ObjectGetter, TokenIssuer } from './token-request.js';

export { createToken, validateTokenRequest, defaultTokenExpirationSeconds } from './token-request.js';
export type { TokenIssuer, ObjectGetter, BoundResource } from './token-request.js';
export { signJWT, parseJWT, verifyJWT, signingKey, verifyingKey, keyIDFromPublicKey } from '../../api/serviceaccount-jwt.js';
export { tokenClaims, checkTokenTimes, serviceAccountUsername, serviceAccountGroups } from './claims.js';

/** kube-apiserver --service-account-issuer as kubeadm sets it; --api-audiences defaults to it. */
export const defaultServiceAccountIssuer = 'https://kubernetes.default.svc.cluster.local';

/** The issuer and verification keys of a control plane whose service-account key pair is `keyPem`/`publicKeyPem` (sa.key, sa.pub). */
export function serviceAccountKeys(keyPem: string, publicKeyPem: string, issuer = defaultServiceAccountIssuer): { issuer: TokenIssuer; keys: VerifyingKey[] } {
  return {
    issuer: { issuer, audiences: [issuer], key: signingKey(keyPem), extendExpiration: true },
    keys: [verifyingKey(publicKeyPem)],
  };
}

/**
 * The objects a token names, read from the registry; from a watch-fed cache
 * first where one is given (upstream's token getter reads its listers and
 * falls back to a live GET, for an object created just now).
 */
export function registryObjectGetter(registry: Registry, caches: Partial<Record<BoundResource, Lister>> = {}): ObjectGetter {
  return async (resource, namespace, name) => caches[resource]?.get(namespace, name) ?? registry.store('', 'v1', resource)!.get(namespace, name);
}

/**
 * The service-account token authenticator (upstream
 * pkg/serviceaccount/jwt.go AuthenticateToken and claims.go Validate):
 *  1. a token whose `iss` is not ours is left to the other authenticators;
 *  2. the signature must verify with one of the service-account public keys;
 *  3. the token's audiences must meet the API server's (--api-audiences);
 *  4. exp/nbf/iat as claims.ts checks them, with a minute's leeway;
 *  5. the service account, and the secret, pod or (node-bound) node the token
 *     is bound to, must still exist with the uid in the token; one deleted
 *     more than the leeway ago counts as gone. A pod-bound token's node is
 *     taken from the claims, not looked up;
 *  6. the user: system:serviceaccount:<ns>:<name>, the service account's uid,
 *     groups system:serviceaccounts and system:serviceaccounts:<ns>, extra
 *     pod-name/pod-uid, node-name/node-uid and credential-id (JTI=<jti>).
 * Any failure means "not authenticated" (401), as upstream's union does.
 */
import { checkTokenTimes, leewaySeconds, serviceAccountGroups, serviceAccountUsername, type ObjectRef, type PrivateClaims } from '../serviceaccount/claims.js';
import { parseJWT, verifyJWT, type VerifyingKey } from '../../api/serviceaccount-jwt.js';
import type { BoundResource, ObjectGetter } from '../serviceaccount/token-request.js';
import type { TokenLookup } from './authenticator.js';
import type { UserInfo } from './types.js';

export interface ServiceAccountTokenOptions {
  issuers: string[];
  audiences: string[];
  keys: VerifyingKey[];
  get: ObjectGetter;
  now?: () => Date;
}

const extraKey = (k: string) => `authentication.kubernetes.io/${k}`;

export function serviceAccountTokenAuthenticator(opts: ServiceAccountTokenOptions): TokenLookup {
  const now = opts.now ?? (() => new Date());
  return async (token) => {
    const jwt = parseJWT(token);
    if (!jwt || typeof jwt.payload.iss !== 'string' || !opts.issuers.includes(jwt.payload.iss)) return undefined; // 1
    if (!verifyJWT(jwt, opts.keys)) return undefined; // 2
    const aud = jwt.payload.aud;
    const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
    if (!audiences.some((a) => opts.audiences.includes(a))) return undefined; // 3
    const at = now();
    if (checkTokenTimes(jwt.payload, at)) return undefined; // 4
    const priv = jwt.payload['kubernetes.io'] as PrivateClaims | undefined;
    if (!priv?.serviceaccount?.name || !priv.namespace) return undefined;
    const stillThere = (resource: BoundResource, ref: ObjectRef, namespace?: string) => boundObjectCurrent(opts.get, at, resource, ref, namespace);
    if (!(await stillThere('serviceaccounts', priv.serviceaccount, priv.namespace))) return undefined; // 5
    if (priv.secret && !(await stillThere('secrets', priv.secret, priv.namespace))) return undefined;
    if (priv.pod && !(await stillThere('pods', priv.pod, priv.namespace))) return undefined;
    if (priv.node && !priv.pod && !(await stillThere('nodes', priv.node))) return undefined;
    return serviceAccountUser(priv, typeof jwt.payload.jti === 'string' ? jwt.payload.jti : ''); // 6
  };
}

async function boundObjectCurrent(get: ObjectGetter, at: Date, resource: BoundResource, ref: ObjectRef, namespace?: string): Promise<boolean> {
  let obj: any;
  try {
    obj = await get(resource, namespace, ref.name);
  } catch {
    return false;
  }
  const deleted = obj.metadata?.deletionTimestamp;
  if (deleted && Date.parse(deleted) < at.getTime() - leewaySeconds * 1000) return false;
  return obj.metadata?.uid === ref.uid;
}

export function serviceAccountUser(priv: PrivateClaims, jti: string): UserInfo {
  const extra: Record<string, string[]> = {};
  if (priv.pod) { extra[extraKey('pod-name')] = [priv.pod.name]; extra[extraKey('pod-uid')] = [priv.pod.uid]; }
  if (priv.node) {
    extra[extraKey('node-name')] = [priv.node.name];
    if (priv.node.uid) extra[extraKey('node-uid')] = [priv.node.uid];
  }
  if (jti) extra[extraKey('credential-id')] = [`JTI=${jti}`];
  return {
    name: serviceAccountUsername(priv.namespace, priv.serviceaccount.name), uid: priv.serviceaccount.uid,
    groups: serviceAccountGroups(priv.namespace), ...(Object.keys(extra).length ? { extra } : {}),
  };
}

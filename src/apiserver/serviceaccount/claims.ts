/**
 * The claims of a bound service-account token (upstream
 * pkg/serviceaccount/claims.go), v1.32 with its default feature gates
 * (ServiceAccountTokenJTI, ServiceAccountTokenPodNodeInfo,
 * ServiceAccountTokenNodeBinding on):
 *  1. public: iss, sub `system:serviceaccount:<ns>:<name>`, aud, exp, iat,
 *     nbf (now), jti (a fresh UUID);
 *  2. private, under `kubernetes.io`: namespace, serviceaccount{name,uid},
 *     and the object it is bound to: pod (with the pod's node when it has
 *     one), secret, or node alone; a token binds to one kind of object only;
 *  3. warnafter: set when the expiry was extended (the kubelet's 3607 s
 *     tokens live a year but are reported stale after 3607 s);
 *  4. timing checks use go-jose's one-minute leeway: expired once
 *     now > exp + 1m, not valid before nbf - 1m, issued in the future when
 *     iat > now + 1m; the messages are upstream's.
 */
import { randomUUID } from 'node:crypto';

export interface ObjectRef { name: string; uid: string }

export interface PrivateClaims {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
  warnafter?: number;
}

export interface TokenClaims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  jti: string;
  'kubernetes.io': PrivateClaims;
  nbf: number;
  sub: string;
}

/** The kubelet's default projected token life; tokens asking for exactly this are extended (3.). */
export const warnOnlyBoundTokenExpirationSeconds = 60 * 60 + 7;
/** How long such an extended token really lives (upstream ExpirationExtensionSeconds: a year). */
export const expirationExtensionSeconds = 24 * 365 * 60 * 60;
/** go-jose's jwt.DefaultLeeway. */
export const leewaySeconds = 60;

export const serviceAccountUsername = (namespace: string, name: string) => `system:serviceaccount:${namespace}:${name}`;
export const serviceAccountGroups = (namespace: string) => ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];

interface Named { metadata?: { name?: string; namespace?: string; uid?: string } }
const refOf = (o: Named): ObjectRef => ({ name: o.metadata?.name ?? '', uid: o.metadata?.uid ?? '' });

export interface ClaimsRequest {
  issuer: string;
  serviceAccount: Named;
  pod?: Named;
  secret?: Named;
  node?: Named;
  expirationSeconds: number;
  /** Seconds after which the token is reported stale; 0 = never (3.). */
  warnAfterSeconds: number;
  audiences: string[];
  now: Date;
}

export function tokenClaims(r: ClaimsRequest): TokenClaims {
  if (r.secret && (r.pod || r.node)) throw new Error('internal error, token can only be bound to one object type');
  const now = Math.floor(r.now.getTime() / 1000);
  const sa = refOf(r.serviceAccount);
  const namespace = r.serviceAccount.metadata?.namespace ?? '';
  const priv: PrivateClaims = { namespace, serviceaccount: sa };
  if (r.pod) priv.pod = refOf(r.pod);
  if (r.secret) priv.secret = refOf(r.secret);
  if (r.node) priv.node = refOf(r.node);
  if (r.warnAfterSeconds) priv.warnafter = now + r.warnAfterSeconds;
  return {
    aud: r.audiences, exp: now + r.expirationSeconds, iat: now, iss: r.issuer, jti: randomUUID(),
    'kubernetes.io': priv, nbf: now, sub: serviceAccountUsername(namespace, sa.name),
  };
}

/** Upstream's timing check (4.): undefined when the token is current, else why not. */
export function checkTokenTimes(claims: { exp?: unknown; nbf?: unknown; iat?: unknown }, now: Date): string | undefined {
  const t = now.getTime() / 1000;
  if (typeof claims.exp === 'number' && t > claims.exp + leewaySeconds) return 'service account token has expired';
  if (typeof claims.nbf === 'number' && t + leewaySeconds < claims.nbf) return 'service account token is not valid yet';
  if (typeof claims.iat === 'number' && t + leewaySeconds < claims.iat) return 'service account token is issued in the future';
  return undefined;
}

/**
 * Who is calling the kubelet (upstream's kubelet with kubeadm's
 * configuration: x509 client certificates, webhook token authentication on,
 * anonymous off), tried in upstream's union order:
 *
 *  1. A client certificate that OpenSSL verified against the client CA bundle
 *     at the handshake (--client-ca-file; by default the cluster CA of the
 *     agent's kubeconfig): user = CN, groups = O.
 *  2. `Authorization: Bearer <token>`: a TokenReview sent to the API server
 *     with the kubelet's own credentials (reviews.ts); user, uid, groups and
 *     extra from its status. Answers are cached by a SHA-256 of the token
 *     (upstream keeps tokens out of memory the same way) for 2 minutes,
 *     authenticated or not (--authentication-token-webhook-cache-ttl);
 *     failures to ask are not cached.
 *  Either way the user is in system:authenticated too (upstream wraps the
 *  union in its AuthenticatedGroupAdder), so RBAC grants to that group count.
 *  3. Anyone else is anonymous, which the kubelet refuses: 401
 *     "Unauthorized". A token that the API server does not know, or a review
 *     that fails, is refused the same way (upstream's filter answers 401 to
 *     an authentication error too).
 */
import { createHash, X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { UserInfo } from 'kubernetes-types/authentication/v1.js';
import { isTooWeakToAuthenticate, pemBlocks, subjectOf } from '../../pki/index.js';
import { ExpiringCache, type Clock } from './expiring-cache.js';
import type { KubeletReviewer } from './reviews.js';

export interface KubeletUser { name: string; uid?: string; groups: string[]; extra?: Record<string, string[]> }

/** upstream's --authentication-token-webhook-cache-ttl default. */
export const tokenCacheTTLMs = 2 * 60_000;
const tokenCacheSize = 4096;

export type KubeletAuthenticator = (req: IncomingMessage) => Promise<KubeletUser | undefined>;

/**
 * The user of the connection's client certificate. A connection keeps its
 * certificate, so the signature check is made once per connection and the
 * answer remembered with it; the expiry is checked on every request.
 */
export function createClientCertAuthenticator(clientCAPem: string): (req: IncomingMessage) => KubeletUser | undefined {
  const cas = pemBlocks(clientCAPem).map((pem) => new X509Certificate(pem));
  if (cas.length === 0) throw new Error('kubelet: the client CA bundle holds no certificate');
  const byConnection = new WeakMap<object, { user?: KubeletUser; notAfter: number }>();
  const verify = (socket: TLSSocket): { user?: KubeletUser; notAfter: number } => {
    const cert = socket.getPeerX509Certificate();
    // Go's x509 refuses SHA-1/MD5 signatures and small RSA keys; OpenSSL at security level 0 (util/tls-serving.ts) does not.
    if (!cert || isTooWeakToAuthenticate(cert) || !cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey))) return { notAfter: 0 };
    const { commonName, organizations } = subjectOf(cert);
    return { user: commonName ? { name: commonName, groups: organizations } : undefined, notAfter: Date.parse(cert.validTo) };
  };
  return (req) => {
    const socket = req.socket as Partial<TLSSocket>;
    if (!socket.authorized || typeof socket.getPeerX509Certificate !== 'function') return undefined;
    let known = byConnection.get(socket);
    if (!known) byConnection.set(socket, known = verify(socket as TLSSocket));
    return known.notAfter >= Date.now() ? known.user : undefined;
  };
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive, as upstream's bearertoken authenticator). */
export function bearerToken(req: IncomingMessage): string | undefined {
  const m = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}

/** Bearer tokens checked with a TokenReview; undefined: not authenticated. Rejects when the review cannot be made. */
export function createTokenAuthenticator(reviewer: KubeletReviewer, now: Clock = Date.now): (token: string) => Promise<KubeletUser | undefined> {
  const cache = new ExpiringCache<KubeletUser | null>(tokenCacheSize, now);
  return async (token) => {
    const key = createHash('sha256').update(token).digest('base64');
    const user = await cache.getOrLoad(key, async () => {
      const review = await reviewer.tokenReview({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
      return review.status?.authenticated ? userOf(review.status.user) : null;
    }, () => tokenCacheTTLMs);
    return user ?? undefined;
  };
}

function userOf(u: UserInfo | undefined): KubeletUser | null {
  if (!u?.username) return null;
  return { name: u.username, ...(u.uid ? { uid: u.uid } : {}), groups: u.groups ?? [], ...(u.extra ? { extra: u.extra } : {}) };
}

/** Certificate first, then bearer token; rejects when a token could not be reviewed. */
export function createKubeletAuthenticator(clientCAPem: string, reviewer: KubeletReviewer, now: Clock = Date.now): KubeletAuthenticator {
  const byCert = createClientCertAuthenticator(clientCAPem);
  const byToken = createTokenAuthenticator(reviewer, now);
  return async (req) => {
    const token = bearerToken(req);
    const user = byCert(req) ?? (token ? await byToken(token) : undefined);
    return user && withAuthenticatedGroup(user);
  };
}

const authenticatedGroup = 'system:authenticated';

function withAuthenticatedGroup(user: KubeletUser): KubeletUser {
  return user.groups.includes(authenticatedGroup) ? user : { ...user, groups: [...user.groups, authenticatedGroup] };
}

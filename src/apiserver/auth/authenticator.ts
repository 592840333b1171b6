/**
 * The request authenticator: the union of upstream's authenticators in their
 * order: client certificate, then bearer token from the Authorization header,
 * then from a websocket subprotocol. Tokens are looked up in the static token
 * file first, then by each of `tokenAuthenticators` in turn (bootstrap tokens,
 * service-account tokens): the first that knows the token decides. Every user found gets the group system:authenticated. Undefined
 * means unauthenticated; the server answers 401. With `anonymous` (kube-apiserver
 * --anonymous-auth), a request that presents no credential at all is
 * system:anonymous in system:unauthenticated (authenticator/request/anonymous);
 * one whose credential is invalid is still undefined: 401, as upstream.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { bearerTokenFromHeader, webSocketBearerToken } from './bearer.js';
import { readTokenFile } from './token-file.js';
import { withAuthenticatedGroup, type UserInfo } from './types.js';
import { createX509Authenticator } from './x509.js';

export type TokenLookup = (token: string) => UserInfo | undefined | Promise<UserInfo | undefined>;

export interface AuthenticatorOptions {
  /** CA bundle whose certificates may authenticate users (kube-apiserver --client-ca-file). */
  clientCAPem: string;
  /** kube-apiserver --token-auth-file; read once, here. */
  tokenFile?: string;
  tokenAuthenticators?: TokenLookup[];
  /** --anonymous-auth: requests without credentials are system:anonymous (the authorizer decides what it may do). */
  anonymous?: boolean;
}

export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';

export function anonymousUser(): UserInfo {
  return { name: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] };
}

/**
 * Did the request bring a credential: a client certificate, a bearer token in
 * the Authorization header (another scheme is not one, as upstream's
 * bearertoken authenticator ignores it), a websocket bearer protocol.
 */
function presentsCredential(req: IncomingMessage): boolean {
  if (bearerTokenFromHeader(req) !== undefined) return true;
  if (webSocketBearerToken(req).kind !== 'none') return true;
  const socket = req.socket as Partial<TLSSocket>;
  const cert = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
  return !!cert && Object.keys(cert).length > 0;
}

export interface Authenticator {
  /** A client certificate is answered at once (no promise: a request makes enough of them). */
  (req: IncomingMessage): UserInfo | undefined | Promise<UserInfo | undefined>;
  /**
   * The same token authenticators on a bare token, as TokenReview asks them
   * (upstream hands them a request carrying only `Authorization: Bearer <token>`).
   */
  authenticateToken(token: string): Promise<UserInfo | undefined>;
}

export function createAuthenticator(opts: AuthenticatorOptions): Authenticator {
  const byCertificate = createX509Authenticator(opts.clientCAPem);
  const staticTokens = opts.tokenFile === undefined ? new Map<string, UserInfo>() : readTokenFile(opts.tokenFile);
  const lookup = async (token: string): Promise<UserInfo | undefined> => {
    let user = staticTokens.get(token);
    for (const authenticateToken of opts.tokenAuthenticators ?? []) {
      if (user) break;
      user = await authenticateToken(token);
    }
    return user && withAuthenticatedGroup(user);
  };
  const authenticate = (req: IncomingMessage): UserInfo | Promise<UserInfo | undefined> => byCertificate(req) ?? byToken(req);
  const byToken = async (req: IncomingMessage): Promise<UserInfo | undefined> => {
    const headerToken = bearerTokenFromHeader(req);
    const headerUser = headerToken === undefined ? undefined : await lookup(headerToken);
    if (headerUser) return headerUser;
    const ws = webSocketBearerToken(req);
    if (ws.kind !== 'token') return undefined;
    const wsUser = await lookup(ws.token);
    if (wsUser) ws.accept();
    return wsUser;
  };
  const orAnonymous = (req: IncomingMessage, user: UserInfo | undefined) => user ?? (presentsCredential(req) ? undefined : anonymousUser());
  const withAnonymous = opts.anonymous
    ? (req: IncomingMessage) => {
      const user = authenticate(req);
      return user instanceof Promise ? user.then((u) => orAnonymous(req, u)) : orAnonymous(req, user);
    }
    : authenticate;
  return Object.assign(withAnonymous, { authenticateToken: lookup });
}

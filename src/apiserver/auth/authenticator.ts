/**
 * The request authenticator: the union of upstream's authenticators in their
 * order: client certificate, then bearer token from the Authorization header,
 * then from a websocket subprotocol. Tokens are looked up in the static token
 * file first, then by each of `tokenAuthenticators` in turn (bootstrap tokens,
 * service-account tokens): the first that knows the token decides. Every user found gets the group system:authenticated. Undefined
 * means unauthenticated; the server answers 401 (k8ts has no anonymous user).
 */
import type { IncomingMessage } from 'node:http';
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
}

export interface Authenticator {
  (req: IncomingMessage): Promise<UserInfo | undefined>;
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
  const authenticate = async (req: IncomingMessage): Promise<UserInfo | undefined> => {
    const certUser = byCertificate(req);
    if (certUser) return certUser;
    const headerToken = bearerTokenFromHeader(req);
    const headerUser = headerToken === undefined ? undefined : await lookup(headerToken);
    if (headerUser) return headerUser;
    const ws = webSocketBearerToken(req);
    if (ws.kind !== 'token') return undefined;
    const wsUser = await lookup(ws.token);
    if (wsUser) ws.accept();
    return wsUser;
  };
  return Object.assign(authenticate, { authenticateToken: lookup });
}

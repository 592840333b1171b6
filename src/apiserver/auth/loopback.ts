/**
 * Who a request on the loopback socket is (apiserver/server.ts listenLoopback): the process's own
 * control loops, each under the identity its client certificate names (the CN as the user, the
 * O values as groups, as the x509 authenticator reads them), authenticated by a random bearer
 * token made at start and handed to the loops in memory (upstream's loopback client carries a
 * token too, genericapiserver's LoopbackClientConfig). A token is good on that socket only, and
 * that socket takes nothing else: no certificate, service-account or static token, no anonymous.
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { subjectOf } from '../../pki/index.js';
import { bearerTokenFromHeader } from './bearer.js';
import { withAuthenticatedGroup, type UserInfo } from './types.js';

export interface LoopbackIdentities {
  /** A new token for the identity of this client certificate. */
  issue(certPem: string): string;
  /** The loopback socket's authenticator. */
  authenticate(req: IncomingMessage): UserInfo | undefined;
}

export function loopbackIdentities(): LoopbackIdentities {
  const users = new Map<string, UserInfo>();
  return {
    issue(certPem) {
      const { commonName, organizations } = subjectOf(new X509Certificate(certPem));
      if (!commonName) throw new Error('loopback: the client certificate names no user');
      const token = randomBytes(32).toString('base64url');
      users.set(token, withAuthenticatedGroup({ name: commonName, groups: organizations }));
      return token;
    },
    authenticate(req) {
      const token = bearerTokenFromHeader(req);
      return token === undefined ? undefined : users.get(token);
    },
  };
}

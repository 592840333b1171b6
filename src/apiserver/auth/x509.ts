/**
 * Client-certificate authentication (authenticator/request/x509): user = the
 * certificate's CN, groups = its O values. The TLS server asks for a
 * certificate but does not require one (requestCert, rejectUnauthorized:
 * false); a certificate counts only when OpenSSL verified it at the handshake
 * (`socket.authorized`) and a CA of the client-CA bundle issued it, so other
 * CAs the server trusts for TLS cannot mint users, and a certificate Go's
 * x509 would refuse (a SHA-1 or MD5 signature, an RSA key under 1024 bits)
 * authenticates no one: the TLS server runs OpenSSL at security level 0
 * (util/tls-serving.ts), which no longer refuses those at the handshake.
 *
 * The result is cached per connection: a keep-alive connection parses its peer
 * certificate once, and the cache entry ends with the certificate's validity.
 */
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { isTooWeakToAuthenticate, pemBlocks, subjectOf } from '../../pki/index.js';
import { withAuthenticatedGroup, type UserInfo } from './types.js';

interface Cached { user: UserInfo | undefined; notAfter: number }

function userOf(cert: X509Certificate): UserInfo | undefined {
  const { commonName, organizations } = subjectOf(cert);
  return commonName === '' ? undefined : withAuthenticatedGroup({ name: commonName, groups: organizations });
}

function verify(socket: TLSSocket, cas: X509Certificate[]): Cached {
  const cert = socket.authorized ? socket.getPeerX509Certificate() : undefined;
  if (!cert) return { user: undefined, notAfter: Infinity };
  const trusted = !isTooWeakToAuthenticate(cert) && cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey));
  return { user: trusted ? userOf(cert) : undefined, notAfter: Date.parse(cert.validTo) };
}

export function createX509Authenticator(clientCAPem: string): (req: IncomingMessage) => UserInfo | undefined {
  const cas = pemBlocks(clientCAPem).map((pem) => new X509Certificate(pem));
  if (cas.length === 0) throw new Error('authn: the client CA bundle holds no certificate');
  const cache = new WeakMap<object, Cached>();
  return (req) => {
    const socket = req.socket as Partial<TLSSocket>;
    if (typeof socket.getPeerX509Certificate !== 'function') return undefined; // not TLS
    let entry = cache.get(socket);
    if (!entry) {
      entry = verify(socket as TLSSocket, cas);
      cache.set(socket, entry);
    }
    return Date.now() <= entry.notAfter ? entry.user : undefined;
  };
}

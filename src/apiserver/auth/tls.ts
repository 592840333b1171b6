/**
 * TLS options for the API server. Client certificates are requested but not
 * required, so token and certificate users share one port; the authenticator
 * decides. Only http/1.1 is offered by ALPN: kubectl prefers h2, and node's
 * https server speaks HTTP/1.1. The handshake accepts what Go's accepts
 * (util/tls-serving.ts: a TLS 1.2 client without signature_algorithms, such
 * as busybox wget in a pod, gets a SHA-1 signed key exchange, not alert 40).
 */
import type { ServerOptions } from 'node:https';
import type { ClusterPKI } from '../../pki/index.js';
import { servingHandshakeOptions } from '../../util/tls-serving.js';

export function serverTLSOptions(pki: Pick<ClusterPKI, 'caCertPem' | 'apiserverCertPem' | 'apiserverKeyPem'>): ServerOptions {
  return {
    cert: pki.apiserverCertPem,
    key: pki.apiserverKeyPem,
    ca: pki.caCertPem,
    requestCert: true,
    rejectUnauthorized: false,
    ...servingHandshakeOptions(),
    ALPNProtocols: ['http/1.1'],
  };
}

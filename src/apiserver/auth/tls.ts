/**
 * TLS options for the API server. Client certificates are requested but not
 * required, so token and certificate users share one port; the authenticator
 * decides. Only http/1.1 is offered by ALPN: kubectl prefers h2, and node's
 * https server speaks HTTP/1.1.
 */
import type { ServerOptions } from 'node:https';
import type { ClusterPKI } from '../../pki/index.js';

export function serverTLSOptions(pki: Pick<ClusterPKI, 'caCertPem' | 'apiserverCertPem' | 'apiserverKeyPem'>): ServerOptions {
  return {
    cert: pki.apiserverCertPem,
    key: pki.apiserverKeyPem,
    ca: pki.caCertPem,
    requestCert: true,
    rejectUnauthorized: false,
    minVersion: 'TLSv1.2',
    ALPNProtocols: ['http/1.1'],
  };
}

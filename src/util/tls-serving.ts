/**
 * The handshake a k8ts TLS server (API server, kubelet) accepts, matched to
 * what kube-apiserver's and the kubelet's Go TLS stack (Go 1.23, Kubernetes
 * 1.32) accepts.
 *
 * A TLS 1.2 ClientHello may omit the signature_algorithms extension; the
 * server must then assume the client supports SHA-1 (RFC 5246 §7.4.1.4.1),
 * and Go does exactly that (crypto/tls auth.go selectSignatureScheme: no peer
 * algorithms in TLS 1.2 means PKCS1WithSHA1 and ECDSAWithSHA1), so it signs
 * its ServerKeyExchange with SHA-1. busybox's own TLS (wget in a busybox
 * image, the in-cluster client of issue #21) sends no signature_algorithms.
 * OpenSSL 3 rates a SHA-1 handshake signature at 64 bits, below security
 * level 1's 80, and refuses the handshake with alert 40 (handshake_failure,
 * "no suitable signature algorithm"). On the node itself busybox wget runs
 * the host's `openssl s_client`, which sends the extension: that is why the
 * same binary "worked" outside the pod.
 *
 * Security level 0 lets OpenSSL sign as Go does. The cipher list stays Node's
 * default (no NULL, export, RC4, DES or anonymous suites) and clients that
 * send signature_algorithms get the algorithm they prefer (SHA-256 and up),
 * as before. What level 0 also relaxes, client-certificate chains with SHA-1
 * or MD5 signatures, the authenticators refuse themselves as Go's x509 does
 * (pki/signature-algorithm.ts).
 */
import { DEFAULT_CIPHERS } from 'node:tls';

export interface ServingHandshakeOptions { minVersion: 'TLSv1.2'; ciphers: string }

export function servingHandshakeOptions(): ServingHandshakeOptions {
  return { minVersion: 'TLSv1.2', ciphers: `${DEFAULT_CIPHERS}:@SECLEVEL=0` };
}

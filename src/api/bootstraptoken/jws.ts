/**
 * Detached JWS signatures (RFC 7515 appendix F) over cluster-info's
 * kubeconfig, as k8s.io/cluster-bootstrap/token/jws computes them: HS256
 * keyed by the token secret, protected header {"alg":"HS256","kid":<token id>}
 * (go-jose writes the header's keys sorted), compact form with the payload
 * left out: `<header>..<signature>`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export function computeDetachedSignature(content: string, tokenID: string, tokenSecret: string): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', kid: tokenID }));
  const signingInput = `${header}.${b64url(content)}`;
  const signature = createHmac('sha256', tokenSecret).update(signingInput).digest('base64url');
  return `${header}..${signature}`;
}

/** DetachedTokenIsValid: the signature is what this token computes over `content` (compared in constant time). */
export function detachedTokenIsValid(detachedToken: string, content: string, tokenID: string, tokenSecret: string): boolean {
  const expected = Buffer.from(computeDetachedSignature(content, tokenID, tokenSecret));
  const given = Buffer.from(detachedToken);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Compact JWS tokens signed with the service-account key (upstream
 * pkg/serviceaccount/jwt.go, go-jose underneath):
 *  1. the algorithm follows the key, as upstream's signer does: RSA → RS256,
 *     EC P-256/P-384/P-521 → ES256/ES384/ES512 (kubeadm's sa.key is RSA;
 *     k8ts's PKI makes an EC P-256 one);
 *  2. the header's `kid` is upstream's keyIDFromPublicKey: the unpadded
 *     base64url SHA-256 of the public key's DER (SubjectPublicKeyInfo);
 *  3. verification tries the keys whose kid matches the header (all keys
 *     when the header has none) and accepts only the algorithm of that key.
 */
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

export interface SigningKey { key: KeyObject; alg: string; kid: string }
export interface VerifyingKey { key: KeyObject; alg: string; kid: string }

const curveAlgs: Record<string, { alg: string; hash: string }> = {
  prime256v1: { alg: 'ES256', hash: 'sha256' }, secp384r1: { alg: 'ES384', hash: 'sha384' }, secp521r1: { alg: 'ES512', hash: 'sha512' },
};

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** Upstream's keyIDFromPublicKey. */
export function keyIDFromPublicKey(pub: KeyObject): string {
  return b64url(createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest());
}

function algOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  const curve = key.asymmetricKeyType === 'ec' ? curveAlgs[key.asymmetricKeyDetails?.namedCurve ?? ''] : undefined;
  if (!curve) throw new Error(`unsupported service account key type ${key.asymmetricKeyType}`);
  return curve.alg;
}

const hashOf = (alg: string) => (alg === 'RS256' ? 'sha256' : Object.values(curveAlgs).find((c) => c.alg === alg)!.hash);

export function signingKey(keyPem: string): SigningKey {
  const key = createPrivateKey(keyPem);
  return { key, alg: algOf(key), kid: keyIDFromPublicKey(createPublicKey(key)) };
}

export function verifyingKey(publicKeyPem: string): VerifyingKey {
  const key = createPublicKey(publicKeyPem);
  return { key, alg: algOf(key), kid: keyIDFromPublicKey(key) };
}

/** EC signatures in JWS are r‖s (IEEE P1363), not DER. */
const dsaEncoding = (alg: string) => (alg.startsWith('ES') ? { dsaEncoding: 'ieee-p1363' as const } : {});

export function signJWT(claims: object, k: SigningKey): string {
  const input = `${b64url(JSON.stringify({ alg: k.alg, kid: k.kid }))}.${b64url(JSON.stringify(claims))}`;
  const sig = sign(hashOf(k.alg), Buffer.from(input), { key: k.key, ...dsaEncoding(k.alg) });
  return `${input}.${b64url(sig)}`;
}

export interface ParsedJWT { header: { alg?: string; kid?: string }; payload: Record<string, unknown>; input: string; signature: Buffer }

/** The three parts of a compact JWS, or undefined when `token` is not one. */
export function parseJWT(token: string): ParsedJWT | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    if (!header || typeof header !== 'object' || !payload || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
    return { header, payload, input: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2], 'base64url') };
  } catch {
    return undefined;
  }
}

/** True when one of `keys` (3.) signed `jwt`. */
export function verifyJWT(jwt: ParsedJWT, keys: VerifyingKey[]): boolean {
  const candidates = jwt.header.kid ? keys.filter((k) => k.kid === jwt.header.kid) : keys;
  return candidates.some((k) => k.alg === jwt.header.alg
    && verify(hashOf(k.alg), Buffer.from(jwt.input), { key: k.key, ...dsaEncoding(k.alg) }, jwt.signature));
}

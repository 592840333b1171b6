/**
 * Bootstrap tokens as kubeadm keeps them: a kube-system Secret named
 * bootstrap-token-<id>, type bootstrap.kubernetes.io/token, holding
 * token-id and token-secret ([a-z0-9]{6} and [a-z0-9]{16}), an RFC 3339
 * expiration when the TTL is not 0 (the token cleaner deletes it then),
 * the usages authentication and signing, and the extra group kubeadm
 * gives node tokens. The join command is kubeadm's
 * `join HOST:PORT --token ID.SECRET --discovery-token-ca-cert-hash sha256:HEX`,
 * the hash being SHA-256 over the CA certificate's SubjectPublicKeyInfo.
 */
import type { Secret } from 'kubernetes-types/core/v1';

export const tokenType = 'bootstrap.kubernetes.io/token';
const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomString(n: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(n * 2));
  let s = '';
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 36).
  for (const b of bytes) { if (b < 252 && s.length < n) s += alphabet[b % 36]; }
  return s.length === n ? s : s + randomString(n - s.length);
}

export const newToken = () => ({ id: randomString(6), secret: randomString(16) });

/** Go's time.ParseDuration for what --ttl takes (h, m, s; "0" never expires), in ms; undefined when malformed. */
export function parseTTL(s: string): number | undefined {
  if (s.trim() === '0') return 0;
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(s.trim());
  if (!m || !s.trim() || (!m[1] && !m[2] && !m[3])) return undefined;
  return ((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 1000;
}

const b64 = (s: string) => btoa(s);

export function tokenSecret(t: { id: string; secret: string }, ttlMs: number, description: string, now: Date): Secret {
  const data: Record<string, string> = {
    'token-id': b64(t.id), 'token-secret': b64(t.secret),
    'usage-bootstrap-authentication': b64('true'), 'usage-bootstrap-signing': b64('true'),
    'auth-extra-groups': b64('system:bootstrappers:kubeadm:default-node-token'),
  };
  if (description) data.description = b64(description);
  if (ttlMs > 0) data.expiration = b64(new Date(now.getTime() + ttlMs).toISOString().replace(/\.\d{3}Z$/, 'Z'));
  return { apiVersion: 'v1', kind: 'Secret', type: tokenType, metadata: { name: `bootstrap-token-${t.id}`, namespace: 'kube-system' }, data };
}

export interface TokenRow { id: string; token: string; expires?: string; usages: string[]; description: string; groups: string }

const field = (s: Secret, k: string) => (s.data?.[k] ? atob(s.data[k]) : '');

/** A Secret as `kubeadm token list` shows it; undefined for a Secret that is not a well-formed token. */
export function tokenRow(s: Secret): TokenRow | undefined {
  if (s.type !== tokenType) return undefined;
  const id = field(s, 'token-id'); const secret = field(s, 'token-secret');
  if (!/^[a-z0-9]{6}$/.test(id) || !/^[a-z0-9]{16}$/.test(secret)) return undefined;
  const usages = Object.keys(s.data ?? {}).filter((k) => k.startsWith('usage-bootstrap-') && field(s, k) === 'true').map((k) => k.slice('usage-bootstrap-'.length)).sort();
  return { id, token: `${id}.${secret}`, expires: field(s, 'expiration') || undefined, usages, description: field(s, 'description'), groups: field(s, 'auth-extra-groups') };
}

/** kubeadm's TTL column: "23h", "59m", "<forever>", "<invalid>" once past. */
export function ttlText(expires: string | undefined, now: Date): string {
  if (!expires) return '<forever>';
  const left = Date.parse(expires) - now.getTime();
  if (!(left > 0)) return '<invalid>';
  const h = Math.round(left / 3_600_000);
  return h >= 1 ? `${h}h` : `${Math.max(1, Math.round(left / 60_000))}m`;
}

/** One TLV of DER at `at`: where its value starts and where it ends. */
function tlv(der: Uint8Array, at: number): { start: number; end: number } {
  let len = der[at + 1]; let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f; len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[at + 2 + i];
    start += n;
  }
  return { start, end: start + len };
}

/** The DER of a certificate's SubjectPublicKeyInfo: tbsCertificate's element after [0] version, serial, signature, issuer, validity, subject. */
export function subjectPublicKeyInfo(der: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const tbs = tlv(der, tlv(der, 0).start);
  let at = tbs.start;
  if (der[at] === 0xa0) at = tlv(der, at).end;
  for (let i = 0; i < 5; i++) at = tlv(der, at).end;
  return der.slice(at, tlv(der, at).end);
}

/** sha256:<hex> of each PEM certificate's public key, as kubeadm pins the CA. */
export async function caCertHashes(pem: string): Promise<string[]> {
  const blocks = [...pem.matchAll(/-----BEGIN CERTIFICATE-----([^-]+)-----END CERTIFICATE-----/g)];
  return Promise.all(blocks.map(async (m) => {
    const der = Uint8Array.from(atob(m[1].replace(/\s+/g, '')), (c) => c.charCodeAt(0));
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', subjectPublicKeyInfo(der)));
    return `sha256:${[...digest].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
  }));
}

/** kubeadm's worker join command (GetJoinWorkerCommand), with the k8ts program name. */
export const joinCommand = (hostPort: string, token: string, hashes: string[]) =>
  `k8ts join ${hostPort} --token ${token}${hashes.map((h) => ` --discovery-token-ca-cert-hash ${h}`).join('')}`;

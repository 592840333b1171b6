/**
 * The CSR signing controller's certificate profile (upstream
 * pkg/controller/certificates/signer and its authority package): key usages
 * and extended key usages from the request's spec.usages names, and
 * PermissiveSigningPolicy's validity: not before now - 5 minutes; not after
 * now + TTL for short-lived certificates (TTL under 8 h), now + TTL - 5 minutes
 * otherwise; never after the CA's own expiry (signLeaf caps that).
 */
const MINUTE = 60_000;
const BACKDATE_MS = 5 * MINUTE;
const SHORT_MS = 8 * 60 * MINUTE;

// x509.KeyUsage bit values as @peculiar/x509's KeyUsageFlags spell them.
const keyUsageBits: Record<string, number> = {
  signing: 1, 'digital signature': 1, 'content commitment': 2, 'key encipherment': 4, 'data encipherment': 8,
  'key agreement': 16, 'cert sign': 32, 'crl sign': 64, 'encipher only': 128, 'decipher only': 256,
};

const extKeyUsageOIDs: Record<string, string> = {
  any: '2.5.29.37.0', 'server auth': '1.3.6.1.5.5.7.3.1', 'client auth': '1.3.6.1.5.5.7.3.2', 'code signing': '1.3.6.1.5.5.7.3.3',
  'email protection': '1.3.6.1.5.5.7.3.4', 's/mime': '1.3.6.1.5.5.7.3.4', 'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6', 'ipsec user': '1.3.6.1.5.5.7.3.7', timestamping: '1.3.6.1.5.5.7.3.8',
  'ocsp signing': '1.3.6.1.5.5.7.3.9', 'microsoft sgc': '1.3.6.1.4.1.311.10.3.3', 'netscape sgc': '2.16.840.1.113730.4.1',
};

export interface SigningProfile { keyUsage: number; extKeyUsages: string[]; notBeforeMs: number; notAfterMs: number }

/** keyUsagesFromStrings: an unknown usage name is an error, in upstream's words. */
export function signingProfile(usages: string[], ttlMs: number, nowMs: number): SigningProfile | { error: string } {
  let keyUsage = 0;
  const extKeyUsages: string[] = [];
  const unrecognized: string[] = [];
  for (const u of usages) {
    if (keyUsageBits[u] !== undefined) keyUsage |= keyUsageBits[u]!;
    else if (extKeyUsageOIDs[u] !== undefined) { if (!extKeyUsages.includes(extKeyUsageOIDs[u]!)) extKeyUsages.push(extKeyUsageOIDs[u]!); }
    else unrecognized.push(u);
  }
  // Go's %q of a []string: ["a" "b"].
  if (unrecognized.length) return { error: `unrecognized usage values: [${unrecognized.map((u) => JSON.stringify(u)).join(' ')}]` };
  const notAfterMs = ttlMs < SHORT_MS ? nowMs + ttlMs : nowMs + ttlMs - BACKDATE_MS;
  return { keyUsage, extKeyUsages, notBeforeMs: nowMs - BACKDATE_MS, notAfterMs };
}

/**
 * The signer's duration: --cluster-signing-duration, or spec.expirationSeconds
 * when shorter, but never under 10 minutes (twice the backdate).
 */
export function signingDurationMs(clusterSigningDurationMs: number, expirationSeconds: number | undefined): number {
  if (expirationSeconds === undefined || expirationSeconds === null) return clusterSigningDurationMs;
  const requested = expirationSeconds * 1000;
  if (requested > clusterSigningDurationMs) return clusterSigningDurationMs;
  return Math.max(requested, 10 * MINUTE);
}

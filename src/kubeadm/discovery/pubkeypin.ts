/**
 * Public key pins in the style of RFC 7469, as kubeadm's util/pubkeypin:
 * `sha256:<hex>` of a certificate's DER SubjectPublicKeyInfo, with its words
 * for a malformed pin and for a CA that none of the pins match.
 */
import { caCertHash, pemBlocks } from '../../pki/index.js';

const supportedFormats = 'sha256';

/** Go's encoding/hex error for the first byte that is not a hex digit. */
function hexError(value: string): string | undefined {
  for (const ch of value) {
    if (!/[0-9a-fA-F]/.test(ch)) {
      const cp = ch.codePointAt(0)!;
      return `encoding/hex: invalid byte: U+${cp.toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(ch).replace(/^"|"$/g, "'")}`;
    }
  }
  return value.length % 2 ? 'encoding/hex: odd length hex string' : undefined;
}

/** Set.Allow: the canonical (lower-case hex) pins, or kubeadm's error for the first bad one. */
export function parsePins(hashes: string[]): Set<string> {
  const pins = new Set<string>();
  for (const h of hashes) {
    const parts = h.split(':');
    if (parts.length !== 2) throw new Error(`invalid hash, expected "format:hex-value". Known format(s) are: ${supportedFormats}`);
    const [format, value] = parts as [string, string];
    if (format.toLowerCase() !== 'sha256') throw new Error(`unknown hash format ${JSON.stringify(format)}. Known format(s) are: ${supportedFormats}`);
    const bytes = Math.floor(value.length / 2);
    if (bytes !== 32) throw new Error(`invalid hash ${JSON.stringify(h)}, expected a 32 byte SHA-256 hash, found ${bytes} bytes`);
    const bad = hexError(value);
    if (bad) throw new Error(`invalid hash ${JSON.stringify(h)}, could not decode SHA-256 from hex: ${bad}`);
    pins.add(value.toLowerCase());
  }
  return pins;
}

/** Set.CheckAny: passes when one certificate of the bundle is pinned, else names every key's hash. */
export function checkAnyPinned(pins: Set<string>, caBundlePem: string): void {
  const hashes: string[] = [];
  for (const cert of pemBlocks(caBundlePem)) {
    const hash = caCertHash(cert);
    if (pins.has(hash.slice('sha256:'.length))) return;
    hashes.push(hash);
  }
  throw new Error(`none of the public keys ${JSON.stringify(hashes.join(':'))} are pinned`);
}

/**
 * RFC 4648 base32 without padding (Go's base32.StdEncoding.WithPadding(NoPadding)),
 * of which kube-proxy's nftables chain names (hashAndTruncate) and the API
 * server's identity (`apiserver-` + its lowercase) take their characters.
 */
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The first `maxChars` characters (all by default) of the encoding of `bytes`. */
export function base32NoPadding(bytes: Uint8Array, maxChars = Infinity): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = ((value << 8) | b) & 0xffff;
    bits += 8;
    while (bits >= 5 && out.length < maxChars) { out += alphabet[(value >>> (bits - 5)) & 31]; bits -= 5; }
    if (out.length >= maxChars) return out;
  }
  return bits > 0 && out.length < maxChars ? out + alphabet[(value << (5 - bits)) & 31] : out;
}

/**
 * A resourceVersion kept by a cold object (its stub is held for every untouched pod, 150,000 of
 * them at scale): as a number when the string is a plain decimal revision (every resourceVersion
 * both backends write), which V8 keeps in the object's field itself (a Smi up to 2^31, a 16-byte
 * HeapNumber above), instead of a string of its own (24-32 bytes a pod); any other string is kept
 * as it is. unpackRevision gives back the exact string.
 */
export type PackedRevision = number | string | undefined;

/** Up to 15 digits, no leading zero: String(Number(rv)) === rv. */
const plainRevision = /^[1-9][0-9]{0,14}$/;

export function packRevision(rv: string | undefined): PackedRevision {
  return rv !== undefined && plainRevision.test(rv) ? Number(rv) : rv;
}

export function unpackRevision(rv: PackedRevision): string | undefined {
  return typeof rv === 'number' ? String(rv) : rv;
}

/**
 * A decoded JSON value as a policy's CEL expressions see it: integral
 * numbers become CEL ints (bigint), as upstream's unstructured conversion
 * gives int64 for JSON integers; the copy leaves the cached object alone.
 */
export function toCelValue(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCelValue);
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = toCelValue(x);
    return out;
  }
  return v;
}

/**
 * How deeply a request body may nest objects and arrays.
 *
 * Upstream refuses nesting at decode time: Go's encoding/json (and
 * sigs.k8s.io/json) stop at 10,000 levels with `invalid character '{'
 * exceeded max depth`, go-yaml at 10,000 with `exceeded max depth of 10000`.
 * Node cannot follow that far: many algorithms an accepted object meets
 * recurse on the JS stack (structuredClone stops near 1,900 levels, the yaml
 * composer near 800, JSON.stringify near 4,100), so k8ts refuses beyond a
 * lower fixed depth that all of them survive with room to spare; see
 * docs/design-notes.md for the measurements.
 *
 * Depth counts open objects and arrays as Go's scanner does: `{}` is 1,
 * `{"a":[]}` is 2.
 */
export const maxNestingDepth = 400;

/** Where JSON text first nests deeper than `limit`: the index of that bracket, or -1. Never recurses. */
export function jsonTextTooDeep(text: string, limit = maxNestingDepth): number {
  // Nesting deeper than the limit takes more opening brackets than it: a text without that many
  // is not read character by character (a create's body, read by the interpreter until TurboFan
  // has compiled this loop, costs a fresh server several microseconds a create).
  if (atMostBrackets(text, limit)) return -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) { // { [
      if (++depth > limit) return i;
    } else if (c === 0x7d || c === 0x5d) { // } ]
      depth--;
    }
  }
  return -1;
}

/** Whether the text has at most `limit` opening brackets, counting those in strings too (an over-count only means a scan). */
function atMostBrackets(text: string, limit: number): boolean {
  if (text.length <= limit) return true;
  let n = 0;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) if (++n > limit) return false;
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1)) if (++n > limit) return false;
  return true;
}

/** Whether a decoded value nests objects and arrays deeper than `limit`. Iterative, so any depth is safe to ask about. */
export function valueTooDeep(value: unknown, limit = maxNestingDepth): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > limit) return true;
    if (Array.isArray(v)) {
      for (const child of v) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
      continue;
    }
    // for-in, not Object.values: on an object of many keys (a ConfigMap's 200,000) V8's
    // Object.values is about three times slower than walking the keys.
    for (const k in v) {
      const child = (v as Record<string, unknown>)[k];
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** encoding/json's words for input nested too deeply, `c` being the bracket that went too deep. */
export function jsonDepthError(c: string): string {
  return `invalid character '${c}' exceeded max depth`;
}

/**
 * Pretty-printed JSON for people (upstream negotiation.isPrettyPrint and the
 * JSON serializer's Pretty option, v1.32):
 *  1. `?pretty=` decides when given: true for what Go's strconv.ParseBool
 *     reads as true, compact for anything else;
 *  2. otherwise a User-Agent starting with `curl`, `Wget` or `Mozilla/5.0`
 *     (browsers and command-line HTTP tools) gets it;
 *  3. the text is indented by two spaces, as json.MarshalIndent, with no
 *     newline after it; Go writes the fields in struct order, so an object's
 *     `kind` and `apiVersion` (TypeMeta) come first, then `metadata` in
 *     ObjectMeta's order, which is what a reader of the docs' output sees.
 * Watch streams stay compact, as upstream's stream serializers.
 * Bounded: a body above prettyMaxBytes goes out compact, so that one curl of
 * a large list cannot hold the serving loop (upstream has no such bound).
 */
import type { IncomingMessage } from 'node:http';

export const prettyMaxBytes = 3 * 1024 * 1024;

const trueWords = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/** Rules 1 and 2. */
export function wantsPretty(req: IncomingMessage | undefined): boolean {
  if (!req) return false;
  const url = req.url ?? '';
  const q = url.indexOf('?');
  if (q >= 0 && url.includes('pretty', q)) {
    // The query alone: a path such as `//` is no URL relative to any base (new URL throws).
    const value = new URLSearchParams(url.slice(q + 1)).get('pretty');
    if (value) return trueWords.has(value);
  }
  const agent = req.headers['user-agent'] ?? '';
  return agent.startsWith('curl') || agent.startsWith('Wget') || agent.startsWith('Mozilla/5.0');
}

/** ObjectMeta's and ListMeta's fields in Go struct order. */
const metaOrder = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
  'continue', 'remainingItemCount'];
const metaRank = new Map(metaOrder.map((k, i) => [k, i]));

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function orderedMeta(meta: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(meta).sort((a, b) => (metaRank.get(a) ?? metaOrder.length) - (metaRank.get(b) ?? metaOrder.length));
  return Object.fromEntries(keys.map((k) => [k, meta[k]]));
}

/** An API object (or list item) with TypeMeta first and its metadata in Go order; the rest as it came. */
function ordered(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['kind', 'apiVersion']) if (k in obj) out[k] = obj[k];
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'kind' || k === 'apiVersion') continue;
    if (k === 'metadata' && isObject(v)) out[k] = orderedMeta(v);
    else if (k === 'items' && Array.isArray(v)) out[k] = v.map((item) => (isObject(item) ? ordered(item) : item));
    else out[k] = v;
  }
  return out;
}

/** Rule 3: JSON text as upstream prints it for people; text that is not JSON, or too large, is returned as it is. */
export function prettyJSON(text: string): string {
  if (text.length > prettyMaxBytes) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify(isObject(value) ? ordered(value) : value, null, 2);
}

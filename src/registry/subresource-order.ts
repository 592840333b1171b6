/**
 * An object written through a subresource that owns part of it (status, approval,
 * ephemeralcontainers), rebuilt with its members in the stored object's order and `status` last.
 *
 * Why: such a write keeps only the members it owns from its body and puts the stored rest back
 * (store.ts, the strategy's prepareForStatusUpdate): members deleted, then added after `status`.
 * The object came out with `status` before `spec`, which is not upstream's order (every built-in
 * kind's Go struct ends with Spec, Status, and a custom resource's map is sorted, which puts
 * `spec` before `status` too), and in dictionary mode: V8 turns an object a member was deleted
 * from into a property dictionary of about 360 bytes, which the watch cache then kept for every
 * status-written pod (bench/RESULTS.md, `mem`). The rebuilt object is a fresh fast object
 * (util/fresh-object.ts) that holds the very same members.
 */
import { freshObject } from '../util/fresh-object.js';

export function inStoredOrder<T extends object>(obj: T, stored: object): T {
  const src = obj as Record<string, unknown>;
  // Assigning a `__proto__` member would set the prototype instead (JSON.parse makes it an own member).
  if (Object.hasOwn(src, '__proto__')) return obj;
  const out: Record<string, unknown> = {};
  for (const k in stored) if (k !== 'status' && Object.hasOwn(src, k)) out[k] = src[k];
  for (const k in src) if (k !== 'status' && !Object.hasOwn(out, k)) out[k] = src[k];
  if (Object.hasOwn(src, 'status')) out.status = src.status;
  return freshObject(out) as T;
}

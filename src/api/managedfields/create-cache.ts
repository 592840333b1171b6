/**
 * A create's managed fields, remembered per object shape.
 *
 * A create is tracked as an update from the kind's zero object (update.ts), so its one entry's
 * FieldsV1 depends only on the kind's type, the ignored fields and the object itself, never on
 * a live object. Controllers create the same object again and again under other names (a
 * ReplicaSet's or a DaemonSet's pods, a Job's), and walking, comparing and encoding the field
 * sets was about a fifth of a pod create's CPU. The object's JSON without its name and namespace
 * is the key: both are non-empty strings the entry never owns (stripMetaManager strips them as
 * single leaves), so every other byte of the object, which can change the set, is in the key.
 *
 * The cached FieldsV1 is frozen and shared by every object created from it, as entries already
 * share the stored FieldsV1 on updates (update.ts, unchangedOwnership): it is only ever read.
 */
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import type { TypeNode } from './types.js';

/**
 * What the general path answered for a shape: its one entry (time aside; none: nothing owned),
 * or undefined when it could not compute them (upstream then drops managedFields).
 */
type Remembered = { entry: ManagedFieldsEntry | undefined } | undefined;

/** Shapes kept per type; the oldest goes first once full (a working set of templates is small). */
const maxShapes = 512;
/** Past this many characters of key an object is computed, not remembered (memory stays bounded). */
const maxKeyChars = 32 * 1024;

const byType = new WeakMap<TypeNode, Map<string, Remembered>>();

export interface CreateShape {
  type: TypeNode;
  /** Everything else the result depends on: kind, apiVersion, manager, subresource, ignored fields. */
  context: string;
}

/**
 * The create's managed fields from the cache, or from `compute` (the general path) whose answer
 * is remembered; `time` is this write's. Objects the key cannot stand for are computed.
 */
export function createManagedFields(
  next: { metadata?: unknown }, shape: CreateShape, time: string, compute: () => ManagedFieldsEntry[] | undefined,
): ManagedFieldsEntry[] | undefined {
  const key = shapeKey(next, shape.context);
  if (key === undefined) return compute();
  let shapes = byType.get(shape.type);
  if (!shapes) { shapes = new Map(); byType.set(shape.type, shapes); }
  if (shapes.has(key)) {
    const r = shapes.get(key);
    if (r === undefined) return undefined;
    // The entry's own key order (time between apiVersion and fieldsType), with this write's time.
    return r.entry ? [{ ...r.entry, time }] : [];
  }
  const computed = compute();
  if (computed !== undefined && computed.length > 1) return computed;
  if (shapes.size >= maxShapes) shapes.delete(shapes.keys().next().value!);
  shapes.set(key, computed === undefined ? undefined : { entry: computed[0] && { ...computed[0], fieldsV1: deepFreeze(computed[0].fieldsV1 as object) } });
  return computed;
}

/** The cache key: context and the object's JSON without name and namespace; undefined when it cannot be one. */
function shapeKey(next: { metadata?: unknown }, context: string): string | undefined {
  const meta = next.metadata as Record<string, unknown> | undefined;
  if (!meta || typeof meta !== 'object' || Array.isArray(meta) || meta.managedFields !== undefined) return undefined;
  const { name, namespace, ...rest } = meta;
  if (typeof name !== 'string' || name === '' || !(namespace === undefined || (typeof namespace === 'string' && namespace !== ''))) return undefined;
  let json: string;
  try {
    json = JSON.stringify({ ...next, metadata: rest });
  } catch {
    return undefined;
  }
  return json.length > maxKeyChars ? undefined : `${context}\u0000${json}`;
}

function deepFreeze<T extends object>(o: T): T {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}

/**
 * A create's managed fields, remembered per object shape.
 *
 * A create is tracked as an update from the kind's zero object (update.ts), so its one entry's
 * FieldsV1 depends only on the kind's type, the ignored fields and the object itself, never on
 * a live object. Controllers create the same object again and again under other names (a
 * ReplicaSet's or a DaemonSet's pods, a Job's), and walking, comparing and encoding the field
 * sets was about a fifth of a pod create's CPU. The key is the object's JSON without its name and
 * namespace (non-empty strings the entry never owns: stripMetaManager strips them as single leaves)
 * and with every other non-empty string that cannot change the set replaced by one marker (see
 * shapeOf): a DaemonSet's pods differ in the node name of their affinity, the scheduler's and the
 * kubelet's Events in their message and object, and each of those was a miss before.
 *
 * The cached FieldsV1 is frozen and shared by every object created from it, as entries already
 * share the stored FieldsV1 on updates (update.ts, unchangedOwnership): it is only ever read.
 */
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import type { ListType, TypeNode } from './types.js';
import { childType, isGranularList, isGranularMap, isObject, keysOf, type JSONObject } from './walk.js';

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
  const key = shapeKey(next, shape.type, shape.context);
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

/** The cache key: context and the object's shape without name and namespace; undefined when it cannot be one. */
function shapeKey(next: { metadata?: unknown }, type: TypeNode, context: string): string | undefined {
  const meta = next.metadata as Record<string, unknown> | undefined;
  if (!meta || typeof meta !== 'object' || Array.isArray(meta) || meta.managedFields !== undefined) return undefined;
  const { name, namespace, ...rest } = meta;
  if (typeof name !== 'string' || name === '' || !(namespace === undefined || (typeof namespace === 'string' && namespace !== ''))) return undefined;
  const budget = { nodes: maxShapeNodes };
  let json: string;
  try {
    const shape = shapeOf({ ...next, metadata: rest }, type, budget, 0);
    if (budget.nodes < 0) return undefined;
    json = JSON.stringify(shape);
  } catch {
    return undefined;
  }
  return json.length > maxKeyChars ? undefined : `${context}\u0000${json}`;
}

/** Stands for any non-empty string where its value cannot change the set. */
const anyString = '\u0000*';
/** Past this many values (or this depth) an object is computed, not remembered. */
const maxShapeNodes = 4096;
const maxShapeDepth = 64;

/**
 * `v` as the create's field set sees it (fieldset.ts compare, from the kind's zero object, whose
 * only values are {} and null): object keys and structure make the paths; a leaf (a scalar or an
 * atomic value) is owned when it differs from its zero value, and no non-empty string equals a
 * zero value, so such strings all read as one marker. The strings that are path elements keep
 * their value: the items of set lists and the key fields of associative lists' items. Numbers and
 * booleans are kept as they are. `budget` counts values down; below zero the walk gave up.
 */
function shapeOf(v: unknown, t: TypeNode, budget: { nodes: number }, depth: number): unknown {
  if (--budget.nodes < 0 || depth > maxShapeDepth) { budget.nodes = -1; return null; }
  if (typeof v === 'string') return v === '' ? v : anyString;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const itemType = t.kind === 'list' ? t.item : t;
    if (!isGranularList(t)) return v.map((item) => shapeOf(item, itemType, budget, depth + 1));
    if (t.listType === 'set') return v;
    return v.map((item) => (isObject(item) ? keyedItem(item, t, budget, depth + 1) : item));
  }
  const out: JSONObject = {};
  // An atomic struct or map is one leaf: its fields' types do not matter, only that strings stay non-empty.
  const granular = isGranularMap(t, v);
  // A map wider than the budget gives up at once (its key list is the comparison's too: keysOf).
  const keys = keysOf(v as JSONObject);
  if (keys.length > budget.nodes) { budget.nodes = -1; return null; }
  for (const k of keys) out[k] = shapeOf((v as JSONObject)[k], granular ? childType(t, k).type : deducedLeaf(t, k), budget, depth + 1);
  return out;
}

/** An associative list's item: its key fields as they are (they make its path element), the rest by shape. */
function keyedItem(item: JSONObject, t: ListType, budget: { nodes: number }, depth: number): JSONObject {
  const out: JSONObject = {};
  // In place, not through Object.entries: its pairs were a pod create's largest allocation here.
  for (const k in item) out[k] = t.keys.includes(k) ? item[k] : shapeOf(item[k], childType(t.item, k).type, budget, depth);
  return out;
}

/** Inside an atomic value every child is a leaf too: keep walking with the field's type where there is one (lists inside stay as they are). */
function deducedLeaf(t: TypeNode, k: string): TypeNode {
  return t.kind === 'struct' || t.kind === 'map' ? childType(t, k).type : t;
}

function deepFreeze<T extends object>(o: T): T {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}

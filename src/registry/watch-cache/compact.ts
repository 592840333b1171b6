/**
 * What the watch cache does to an object as it enters, before anyone else holds it: its strings
 * pooled (util/intern.ts), managedFields' field sets shared among objects, and for the kinds whose
 * objects repeat by the thousand (pods) the spec, status and metadata subtrees shared too
 * (util/shared-objects.ts, which the control loops' informers use as well). Equal values
 * throughout, so nothing a reader sees changes; shared subtrees are frozen, so a reader that
 * tried to change one would throw instead of changing another object.
 */
import { StringPool } from '../../util/intern.js';
import { TreePool } from '../../util/shared-trees.js';
import { freshObject } from '../../util/fresh-object.js';
import { ObjectSharing, isRecord, sameChildren } from '../../util/shared-objects.js';

/**
 * One pool for every resource's cache: namespaces, node names, label keys and values repeat
 * across resources.
 */
const strings = new StringPool();

/**
 * managedFields' field sets: one manager's field sets repeat across a kind's objects, and they
 * were two thirds of the cache's heap at 5,000 nodes and 10,000 pods (bench/RESULTS.md, `memory`).
 */
const fieldSets = new TreePool();

/** Spec, status and metadata subtrees of the kinds in sharedTopLevel (util/shared-objects.ts), their strings in `strings`. */
const sharing = new ObjectSharing(strings);

/**
 * The top-level members whose subtrees are shared, by the resource's storage prefix. Only where
 * the objects are many and alike: sharing a unique subtree costs its entry in the pool.
 */
const sharedTopLevel: Record<string, readonly string[]> = {
  // metadata: a DaemonSet's or ReplicaSet's pods have the same labels, owner references and,
  // created in one second, the same managedFields entry of their creator (its field set and time).
  '/registry/core/pods/': ['spec', 'status', 'metadata'],
};

/**
 * The resources whose objects' strings are not pooled, by storage prefix. Node Leases: 5,000
 * nodes renew 500 a second, each renewal a new version whose new strings (renewTime, the
 * kubelet's managedFields time, resourceVersion) are unique, so pooling them cost a lookup per
 * string of every renewal on the serving thread (about 4% of it, bench/RESULTS.md `ds8-2026-12-06`)
 * and churned the pool's generations, pushing out the strings that do repeat (a pod's); the
 * rest (name, namespace, holder, uid) is one Lease's own or repeats in few objects. Their field
 * sets are still shared: the kubelets' entries are alike.
 */
const unpooledStrings: ReadonlySet<string> = new Set(['/registry/coordination.k8s.io/leases/']);

/** How compact treats a resource's objects. */
export interface Compaction {
  /** The members whose subtrees are shared among objects (empty: strings and field sets only). */
  readonly members: readonly string[];
  /** Whether the objects' strings are pooled. */
  readonly poolStrings: boolean;
}

/** How compact treats the objects of the resource stored under this prefix. */
export function compactionFor(resourcePrefix: string): Compaction {
  return {
    members: Object.hasOwn(sharedTopLevel, resourcePrefix) ? sharedTopLevel[resourcePrefix]! : [],
    poolStrings: !unpooledStrings.has(resourcePrefix),
  };
}

const everything: Compaction = { members: [], poolStrings: true };

/**
 * Pools an object's strings (unless `how` says not) and shares its field sets and the subtrees
 * under `how`'s members, in place.
 * `prev`: the object it replaces, whose parts are tried first (an update usually leaves most of
 * them as they were: one comparison instead of hashing every node). `like`: for a new object (no
 * `prev`), another object of the kind whose subtrees are tried first in the same way.
 */
export function compact<T>(obj: T, prev?: unknown, how: Compaction = everything, like?: unknown): T {
  // A new object's entries are tried against `like`'s: objects created in the same second by one
  // manager from one template (a ReplicaSet's or DaemonSet's pods) have equal creator entries, which
  // then are one frozen object instead of an entry each.
  shareFieldSets(obj, prev ?? like);
  return sharing.compact(obj, prev, how.members, like, how.poolStrings);
}

function shareFieldSets(obj: unknown, prev: unknown): void {
  const entries = managedFieldsOf(obj);
  if (!entries) return;
  const before = managedFieldsOf(prev);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e === null || typeof e !== 'object' || e.fieldsV1 === undefined || Object.isFrozen(e)) continue;
    const p = before && entryOf(before, i, e.manager);
    e.fieldsV1 = p ? fieldSets.internLike(e.fieldsV1, p.fieldsV1) : fieldSets.intern(e.fieldsV1);
    // A fresh fast object (fresh-object.ts: an entry built by the write had a hidden class of its own).
    entries[i] = freshObject(e);
    // An entry the write left as it was (its manager's time and fields unchanged; the field set is
    // now the very same object) becomes the previous version's own, frozen: one object for every
    // version the ring holds instead of a copy each, which every young-generation collection copied
    // while the versions were new (sixteen managers applying in turn: issue 19, attack 4).
    if (p && isRecord(p) && sameChildren(entries[i] as Record<string, unknown>, p)) entries[i] = Object.isFrozen(p) ? p : Object.freeze(p);
  }
}

/**
 * The previous version's entry of `manager` at index i, or one place later or earlier: an
 * entry whose time changed moves, and the entries after it shift by one. Not searched further,
 * so a write to an object of thousands of managers stays linear.
 */
function entryOf(before: FieldsEntry[], i: number, manager: unknown): FieldsEntry {
  const at = (j: number) => { const p = before[j]; return p && p.manager === manager ? p : undefined; };
  return at(i) ?? at(i + 1) ?? at(i - 1);
}

type FieldsEntry = { manager?: unknown; fieldsV1?: unknown } | null | undefined;

function managedFieldsOf(obj: unknown): FieldsEntry[] | undefined {
  const entries = (obj as { metadata?: { managedFields?: unknown } } | undefined)?.metadata?.managedFields;
  return Array.isArray(entries) ? entries as FieldsEntry[] : undefined;
}

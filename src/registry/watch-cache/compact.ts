/**
 * What the watch cache does to an object as it enters, before anyone else holds it: its strings
 * pooled (util/intern.ts), managedFields' field sets shared among objects, and for the kinds whose
 * objects repeat by the thousand (pods) the spec and status subtrees shared too (util/shared-trees.ts).
 * Equal values throughout, so nothing a reader sees changes; shared subtrees are frozen, so a
 * reader that tried to change one would throw instead of changing another object.
 *
 * Why pods' spec and status: a DaemonSet's or ReplicaSet's pods have the same containers, volumes
 * (the service-account token projection), tolerations and security context, and their status
 * conditions repeat too (the same type, status and often the same second); each decoded pod held
 * its own copy of all of it (bench/RESULTS.md, `memory3`).
 */
import { StringPool } from '../../util/intern.js';
import { TreePool } from '../../util/shared-trees.js';
import { freshObject } from '../../util/fresh-object.js';

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

/**
 * Spec and status subtrees of the kinds in sharedTopLevel, each new node pooled as a fresh copy
 * with its strings pooled (shared-trees.ts TreePoolOptions: a frozen spread-made object had a
 * hidden class of its own, and internAll does not walk into frozen subtrees).
 */
const objectTrees = new TreePool(32_768, 64, { freshNodes: true, internString: (s) => strings.intern(s) });

/**
 * The top-level members whose subtrees are shared, by the resource's storage prefix. Only where
 * the objects are many and alike: sharing a unique subtree costs its entry in the pool.
 */
const sharedTopLevel: Record<string, readonly string[]> = {
  // metadata: a DaemonSet's or ReplicaSet's pods have the same labels, owner references and,
  // created in one second, the same managedFields entry of their creator (its field set and time).
  '/registry/core/pods/': ['spec', 'status', 'metadata'],
};

/** The members of a resource's objects whose subtrees compact shares (empty: strings and field sets only). */
export function sharedMembersFor(resourcePrefix: string): readonly string[] {
  return Object.hasOwn(sharedTopLevel, resourcePrefix) ? sharedTopLevel[resourcePrefix]! : [];
}

/**
 * Pools an object's strings and shares its field sets and the subtrees under `members`, in place.
 * `prev`: the object it replaces, whose parts are tried first (an update usually leaves most of
 * them as they were: one comparison instead of hashing every node). `like`: for a new object (no
 * `prev`), another object of the kind whose subtrees are tried first in the same way.
 */
export function compact<T>(obj: T, prev?: unknown, members: readonly string[] = [], like?: unknown): T {
  // A new object's entries are tried against `like`'s: objects created in the same second by one
  // manager from one template (a ReplicaSet's or DaemonSet's pods) have equal creator entries, which
  // then are one frozen object instead of an entry each.
  shareFieldSets(obj, prev ?? like);
  if (members.length > 0 && obj !== null && typeof obj === 'object') shareMembers(obj as Record<string, unknown>, prev, members, like);
  // After the sharing: the subtrees shared above are frozen, and internAll does not walk into frozen
  // ones, so the strings of a subtree dropped for its shared copy are never looked up in the pool.
  strings.internAll(obj);
  if (isRecord(obj)) refit(obj, prev);
  return obj;
}

/**
 * The object's own (unfrozen) object members as fresh fast objects (util/fresh-object.ts), in
 * place: the object itself keeps its identity (a write's answer is the cache's own object,
 * store.ts resultShared). A member that is the previous version's own (an update that left it as
 * it was) was refitted when that version entered and is kept as it is.
 */
function refit(o: Record<string, unknown>, prev: unknown): void {
  const p = isRecord(prev) ? prev : undefined;
  for (const k in o) {
    const v = o[k];
    if (!isRecord(v) || Object.isFrozen(v) || v === p?.[k] || Object.getPrototypeOf(v) !== Object.prototype) continue;
    o[k] = freshObject(v);
  }
}

function shareMembers(o: Record<string, unknown>, prev: unknown, members: readonly string[], like: unknown): void {
  const p = isRecord(prev) ? prev : undefined;
  const l = p === undefined && isRecord(like) ? like : undefined;
  for (const m of members) {
    const v = o[m];
    if (!isRecord(v)) continue;
    if (p !== undefined) o[m] = shareChildren(v, p[m]);
    else shareChildrenLike(v, l?.[m]);
  }
}

/**
 * For a new object (no previous one): shares each child of `v`, trying first the same child of
 * `like` (another object of the kind, e.g. the last one created: pods created from one template
 * have equal containers, volumes and tolerations), found equal by one comparison instead of
 * hashing every node. The member itself stays the object's own.
 */
function shareChildrenLike(v: Record<string, unknown>, like: unknown): void {
  if (Object.isFrozen(v)) return;
  const l = isRecord(like) ? like : undefined;
  for (const k in v) {
    const c = v[k];
    if (c === null || typeof c !== 'object' || k === 'managedFields') continue;
    v[k] = l ? objectTrees.internLike(c, l[k]) : objectTrees.intern(c);
  }
}

/**
 * Shares each child of `v` (the member itself is the object's own: a pod's spec and status hold
 * its node name and IP, so they rarely repeat whole), trying the previous object's child first.
 * Answers `prev` itself when every child is the same as its (an update that left the member as
 * it was: the status of a spec change, the spec of a status write), else `v`.
 */
function shareChildren(v: Record<string, unknown>, prev: unknown): Record<string, unknown> {
  if (Object.isFrozen(v)) return v;
  const before = isRecord(prev) ? prev : undefined;
  for (const k in v) {
    const c = v[k];
    if (c === null || typeof c !== 'object' || k === 'managedFields') continue;
    v[k] = before ? objectTrees.internLike(c, before[k]) : objectTrees.intern(c);
  }
  return before && sameChildren(v, before) ? before : v;
}

/** Whether two objects have the same keys in the same order and identical values. */
function sameChildren(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(b);
  let i = 0;
  for (const k in a) if (keys[i++] !== k || a[k] !== b[k]) return false;
  return i === keys.length;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
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

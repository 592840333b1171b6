/**
 * What the garbage collector does with one object whose owners it has
 * looked up (upstream garbagecollector.go attemptToDeleteItem). Each owner
 * reference is one of
 *   solid:    the owner exists and is not being deleted in the foreground;
 *   dangling: no object with that uid exists under those coordinates;
 *   waiting:  the owner is being deleted and has `foregroundDeletion`.
 * Then, in this order:
 *  1. No owner references: nothing.
 *  2. Some solid owner: the object stays; dangling and waiting references
 *     are removed from it (a waiting owner would otherwise wait forever).
 *  3. A waiting owner, and the object has dependents of its own: it is
 *     deleted in the foreground too (its references made non-blocking first
 *     when one of its dependents is itself deleting dependents, to break cycles).
 *  4. Otherwise every owner is gone or going: delete it, honouring an
 *     `orphan` or `foregroundDeletion` finalizer it already has, else in the
 *     background.
 */
import type { OwnerReference } from './graph.js';
import { FinalizerDeleteDependents, FinalizerOrphanDependents } from './graph.js';

export interface ClassifiedReferences { solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[] }

export type DeletionPropagation = 'Orphan' | 'Foreground' | 'Background';

export type Decision =
  | { action: 'none' }
  | { action: 'removeOwnerReferences'; uids: string[] }
  | { action: 'delete'; policy: DeletionPropagation; unblockFirst: boolean };

export interface ItemFacts {
  ownerReferences: readonly OwnerReference[];
  finalizers: readonly string[];
  /** The object has dependents in the graph. */
  hasDependents: boolean;
  /** One of those dependents is itself deleting its dependents. */
  dependentDeletingDependents: boolean;
}

/** The rules of the file comment, in their order. */
export function decide(item: ItemFacts, refs: ClassifiedReferences): Decision {
  if (item.ownerReferences.length === 0) return { action: 'none' }; // 1
  if (refs.solid.length) { // 2
    if (!refs.dangling.length && !refs.waiting.length) return { action: 'none' };
    return { action: 'removeOwnerReferences', uids: [...refs.dangling, ...refs.waiting].map((r) => r.uid) };
  }
  if (refs.waiting.length && item.hasDependents) { // 3
    return { action: 'delete', policy: 'Foreground', unblockFirst: item.dependentDeletingDependents };
  }
  let policy: DeletionPropagation = 'Background'; // 4
  if (item.finalizers.includes(FinalizerOrphanDependents)) policy = 'Orphan';
  else if (item.finalizers.includes(FinalizerDeleteDependents)) policy = 'Foreground';
  return { action: 'delete', policy, unblockFirst: false };
}

/** The owner-reference patch that drops the given owners (strategic merge, merge key uid). */
/** A strategic merge patch of a dependent's ownerReferences (merge key uid). */
export interface OwnerRefsPatch { metadata: { uid: string; ownerReferences: (OwnerReference | { $patch: 'delete'; uid: string })[] } }

export function deleteOwnerRefsPatch(dependentUID: string, ownerUIDs: readonly string[]): OwnerRefsPatch {
  return { metadata: { uid: dependentUID, ownerReferences: ownerUIDs.map((uid) => ({ $patch: 'delete' as const, uid })) } };
}

/** unblockOwnerReferencesStrategicMergePatch: blockOwnerDeletion false on every blocking reference; undefined when none. */
export function unblockOwnerRefsPatch(dependentUID: string, refs: readonly OwnerReference[]): OwnerRefsPatch | undefined {
  const blocking = refs.filter((r) => r.blockOwnerDeletion);
  if (!blocking.length) return undefined;
  return { metadata: { uid: dependentUID, ownerReferences: blocking.map((r) => ({ ...r, blockOwnerDeletion: false })) } };
}

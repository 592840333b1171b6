/**
 * ControllerRef management shared by the workload controllers (upstream
 * pkg/controller/controller_ref_manager.go, ClaimPods / ClaimReplicaSets):
 *  1. Owned (controller ref with the owner's uid): kept while the selector
 *     matches; otherwise released (our reference removed), unless being deleted.
 *  2. Owned by another controller: ignored.
 *  3. Orphans matching the selector and not being deleted are adopted, after
 *     one fresh read confirms the owner still exists and is not being deleted
 *     (so a deleted owner never adopts).
 * Writes are JSON merge patches of the whole ownerReferences list with the
 * object's resourceVersion as a precondition; an object that vanished
 * meanwhile is skipped.
 */
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { ResourceClient } from '../client/index.js';
import { isNotFound } from '../client/index.js';
import { matchesSelector } from '../api/labels.js';
import type { Selector } from '../api/labels.js';
import { controllerRef } from '../api/pods.js';

export interface OwnerKind { apiVersion: string; kind: string }

/**
 * The pod indexes of the workload controllers that claim pods by controllerRef (ReplicaSet,
 * ReplicationController, StatefulSet), by one name each: the controllers share one pod informer,
 * and an index is kept once per name, so one entry a pod serves them all (two same indexes under
 * two names were an entry a pod each in the control loops, bench/RESULTS.md `meminf2-2026-12-06`).
 */
export const controllerUIDIndex = 'controllerUID';
export const indexByControllerUID = (obj: Owned): string[] => { const r = controllerRef(obj); return r ? [r.uid!] : []; };
/** Objects without a controllerRef, by namespace: the orphans a controller may adopt. */
export const orphansByNamespaceIndex = 'orphansByNamespace';
export const indexOrphansByNamespace = (obj: Owned): string[] => (controllerRef(obj) ? [] : [obj.metadata?.namespace ?? '']);

/** Any object with object metadata: an owner or a candidate (Pod, ReplicaSet ...). */
export interface Owned { metadata?: ObjectMeta }

/** metav1.NewControllerRef. */
export function newControllerRef(owner: Owned, kind: OwnerKind): OwnerReference {
  return { apiVersion: kind.apiVersion, kind: kind.kind, name: owner.metadata!.name!, uid: owner.metadata!.uid!, controller: true, blockOwnerDeletion: true };
}

export interface ClaimInput<T extends Owned> {
  owner: Owned;
  kind: OwnerKind;
  selector: Selector;
  /** Candidates: objects the owner controls and orphans, in its namespace. */
  candidates: readonly T[];
  client: ResourceClient;
  /** A fresh read of the owner; throws when it is gone, replaced or being deleted. */
  recheck: () => Promise<void>;
}

const isDeleting = (o: Owned) => !!o.metadata?.deletionTimestamp;

/** The candidates the owner keeps, after adopting and releasing as above. */
export async function claimObjects<T extends Owned>(input: ClaimInput<T>): Promise<T[]> {
  const { owner, selector, client } = input;
  const uid = owner.metadata!.uid;
  const claimed: T[] = [];
  const errors: unknown[] = [];
  const adoptable: T[] = [];
  for (const obj of input.candidates) {
    const ref = controllerRef(obj);
    const matches = matchesSelector(selector, obj.metadata!.labels);
    if (ref) {
      if (ref.uid !== uid) continue; // 2
      if (matches) { claimed.push(obj); continue; } // 1
      if (!isDeleting(obj)) await patchRefs(client, obj, (obj.metadata!.ownerReferences ?? []).filter((r) => r.uid !== uid)).catch((e) => errors.push(e));
      continue;
    }
    if (matches && !isDeleting(obj)) adoptable.push(obj); // 3
  }
  if (adoptable.length && !isDeleting(owner)) {
    try {
      await input.recheck();
      for (const obj of adoptable) {
        const refs = [...(obj.metadata!.ownerReferences ?? []), newControllerRef(owner, input.kind)];
        const adopted = await patchRefs(client, obj, refs).catch((e) => { errors.push(e); return undefined; });
        if (adopted) claimed.push(adopted);
      }
    } catch (e) {
      errors.push(e);
    }
  }
  if (errors.length) throw errors[0];
  return claimed;
}

/** The patched object, or undefined when it is gone. */
async function patchRefs<T extends Owned>(client: ResourceClient, obj: T, refs: OwnerReference[]): Promise<T | undefined> {
  const meta = obj.metadata!;
  try {
    return await client.patch(meta.namespace, meta.name!, { metadata: { ownerReferences: refs, resourceVersion: meta.resourceVersion } });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** RecheckDeletionTimestamp over a fresh GET of the owner. */
export function recheckOwner(client: ResourceClient, owner: Owned, kind: string): () => Promise<void> {
  const { namespace, name, uid } = owner.metadata!;
  return async () => {
    const fresh: Owned = await client.get(namespace, name!);
    if (fresh.metadata!.uid !== uid) {
      throw new Error(`original ${kind} ${namespace}/${name} is gone: got uid ${fresh.metadata!.uid}, wanted ${uid}`);
    }
    if (fresh.metadata!.deletionTimestamp) {
      throw new Error(`${namespace}/${name} has just been deleted at ${fresh.metadata!.deletionTimestamp}`);
    }
  };
}

/**
 * reflect.DeepEqual of two label maps, as the update handlers compare old and new labels: the
 * same keys with the same values, in any order. A comparison, not a serialization: these run
 * for every pod event of every controller (goJSON of both maps cost the StatefulSet controller
 * about 3% of the control loops' thread in a 5,000-pod DaemonSet rollout).
 */
export function sameLabels(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  if (a === b) return true;
  const ka = a ? Object.keys(a) : [];
  const kb = b ? Object.keys(b) : [];
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!Object.hasOwn(b!, k) || b![k] !== a![k]) return false;
  return true;
}

/** reflect.DeepEqual of two controller refs (either may be absent). */
export function sameControllerRef(a: OwnerReference | undefined, b: OwnerReference | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && a.uid === b.uid
    && (a.controller ?? undefined) === (b.controller ?? undefined) && (a.blockOwnerDeletion ?? undefined) === (b.blockOwnerDeletion ?? undefined);
}

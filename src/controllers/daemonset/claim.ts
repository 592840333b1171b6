/**
 * ControllerRef management (upstream controller_ref_manager.go ClaimPods /
 * ClaimControllerRevisions), for one DaemonSet over objects from the cache:
 *  1. Owned (controller ref with our uid): kept while the selector matches;
 *     otherwise released (our reference removed), unless being deleted.
 *  2. Owned by another controller: ignored.
 *  3. Orphans matching the selector and not being deleted are adopted, after
 *     one fresh read confirms the DaemonSet still exists and is not being
 *     deleted (so a deleted DaemonSet never adopts).
 * Writes are JSON merge patches of the whole ownerReferences list with the
 * object's resourceVersion as a precondition; an object that has vanished
 * meanwhile is skipped.
 */
import type { ResourceClient } from '../../client/index.js';
import { isNotFound } from '../../client/index.js';
import { matchesSelector } from '../../api/labels.js';
import type { Selector } from '../../api/labels.js';
import { controllerRef } from '../../api/pods.js';
import { controllerRefTo, isDeleting } from './util.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { Owned } from '../controller-ref.js';

export interface ClaimInput<T extends Owned> {
  ds: DaemonSet;
  selector: Selector;
  /** Objects whose controller ref has the DaemonSet's uid. */
  owned: readonly T[];
  /** Objects in the namespace without a controller ref. */
  orphans: readonly T[];
  client: ResourceClient;
  /** A fresh read of the DaemonSet; throws when it is gone or replaced. */
  recheck: () => Promise<void>;
}

export async function claim<T extends Owned>(input: ClaimInput<T>): Promise<T[]> {
  const { ds, selector, client } = input;
  const claimed: T[] = [];
  const errors: unknown[] = [];
  for (const obj of input.owned) {
    if (matchesSelector(selector, obj.metadata!.labels)) { claimed.push(obj); continue; }
    if (isDeleting(obj)) continue;
    await release(client, ds, obj).catch((e) => errors.push(e));
  }
  const adoptable = input.orphans.filter((o) => !controllerRef(o) && matchesSelector(selector, o.metadata!.labels) && !isDeleting(o));
  if (adoptable.length) {
    try {
      await input.recheck();
      for (const obj of adoptable) {
        if (await adopt(client, ds, obj).catch((e) => { errors.push(e); return false; })) claimed.push(obj);
      }
    } catch (e) {
      errors.push(e);
    }
  }
  if (errors.length) throw errors[0];
  return claimed;
}

async function adopt(client: ResourceClient, ds: DaemonSet, obj: Owned): Promise<boolean> {
  const refs = [...(obj.metadata!.ownerReferences ?? []), controllerRefTo(ds)];
  try {
    await patchRefs(client, obj, refs);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

async function release(client: ResourceClient, ds: DaemonSet, obj: Owned): Promise<void> {
  const refs = (obj.metadata!.ownerReferences ?? []).filter((r) => r.uid !== ds.metadata!.uid);
  try {
    await patchRefs(client, obj, refs);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

/** A merge patch of the whole ownerReferences list, guarded by the object's resourceVersion. */
async function patchRefs(client: ResourceClient, obj: Owned, refs: OwnerReference[]): Promise<void> {
  const meta = obj.metadata!;
  await client.patch(meta.namespace, meta.name!, { metadata: { ownerReferences: refs, resourceVersion: meta.resourceVersion } });
}

/** RecheckDeletionTimestamp over a fresh GET of the DaemonSet. */
export function recheckDaemonSet(client: ResourceClient, ds: DaemonSet): () => Promise<void> {
  return async () => {
    const fresh: DaemonSet = await client.get(ds.metadata!.namespace, ds.metadata!.name!);
    if (fresh.metadata!.uid !== ds.metadata!.uid) {
      throw new Error(`original DaemonSet ${ds.metadata!.namespace}/${ds.metadata!.name} is gone: got uid ${fresh.metadata!.uid}, wanted ${ds.metadata!.uid}`);
    }
    if (fresh.metadata!.deletionTimestamp) {
      throw new Error(`${ds.metadata!.namespace}/${ds.metadata!.name} has just been deleted at ${fresh.metadata!.deletionTimestamp}`);
    }
  };
}

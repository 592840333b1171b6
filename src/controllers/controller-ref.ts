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
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { ResourceClient } from '../client/index.js';
import { isNotFound } from '../client/index.js';
import { matchesSelector } from '../api/labels.js';
import type { Selector } from '../api/labels.js';
import { controllerRef } from '../api/pods.js';

export interface OwnerKind { apiVersion: string; kind: string }

/** metav1.NewControllerRef. */
export function newControllerRef(owner: any, kind: OwnerKind): OwnerReference {
  return { apiVersion: kind.apiVersion, kind: kind.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}

export interface ClaimInput {
  owner: any;
  kind: OwnerKind;
  selector: Selector;
  /** Candidates: objects the owner controls and orphans, in its namespace. */
  candidates: readonly any[];
  client: ResourceClient;
  /** A fresh read of the owner; throws when it is gone, replaced or being deleted. */
  recheck: () => Promise<void>;
}

const isDeleting = (o: any) => !!o?.metadata?.deletionTimestamp;

/** The candidates the owner keeps, after adopting and releasing as above. */
export async function claimObjects(input: ClaimInput): Promise<any[]> {
  const { owner, selector, client } = input;
  const uid = owner.metadata.uid;
  const claimed: any[] = [];
  const errors: unknown[] = [];
  const adoptable: any[] = [];
  for (const obj of input.candidates) {
    const ref = controllerRef(obj);
    const matches = matchesSelector(selector, obj.metadata.labels);
    if (ref) {
      if (ref.uid !== uid) continue; // 2
      if (matches) { claimed.push(obj); continue; } // 1
      if (!isDeleting(obj)) await patchRefs(client, obj, (obj.metadata.ownerReferences ?? []).filter((r: any) => r.uid !== uid)).catch((e) => errors.push(e));
      continue;
    }
    if (matches && !isDeleting(obj)) adoptable.push(obj); // 3
  }
  if (adoptable.length && !isDeleting(owner)) {
    try {
      await input.recheck();
      for (const obj of adoptable) {
        const refs = [...(obj.metadata.ownerReferences ?? []), newControllerRef(owner, input.kind)];
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
async function patchRefs(client: ResourceClient, obj: any, refs: unknown[]): Promise<any | undefined> {
  try {
    return await client.patch(obj.metadata.namespace, obj.metadata.name, { metadata: { ownerReferences: refs, resourceVersion: obj.metadata.resourceVersion } });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** RecheckDeletionTimestamp over a fresh GET of the owner. */
export function recheckOwner(client: ResourceClient, owner: any, kind: string): () => Promise<void> {
  return async () => {
    const fresh = await client.get(owner.metadata.namespace, owner.metadata.name);
    if (fresh.metadata.uid !== owner.metadata.uid) {
      throw new Error(`original ${kind} ${owner.metadata.namespace}/${owner.metadata.name} is gone: got uid ${fresh.metadata.uid}, wanted ${owner.metadata.uid}`);
    }
    if (fresh.metadata.deletionTimestamp) {
      throw new Error(`${owner.metadata.namespace}/${owner.metadata.name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
    }
  };
}

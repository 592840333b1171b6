/**
 * The write both storage protection controllers make (pvcprotection,
 * pvprotection): an update of the cached object with the finalizer added or
 * removed, as upstream's addFinalizer/removeFinalizer. The cached
 * resourceVersion guards it: a Conflict is retried from a fresh cache.
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { ResourceClient } from '../client/index.js';
import { isNotFound } from '../client/index.js';
import { withFinalizer } from '../api/storage-protection.js';

/** False when the object is gone already (nothing left to protect). */
export async function updateProtectionFinalizer(client: ResourceClient, obj: { metadata?: ObjectMeta }, finalizer: string, add: boolean): Promise<boolean> {
  try {
    await client.update(withFinalizer(obj, finalizer, add));
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

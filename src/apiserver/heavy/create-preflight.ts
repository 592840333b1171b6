/**
 * What a worker can settle of a large create of a built-in kind before the
 * loop sees it: defaults, validation, the create's managed fields and the
 * stored-size limit. All of them are pure functions of the decoded body and
 * the request, so the answers are the loop's own, byte for byte.
 *
 * Upstream decodes a create with its defaults, tracks its managed fields,
 * validates it, then etcd refuses what is over its request limit (500
 * "etcdserver: request is too large"). Here an invalid object is answered with
 * its 422, all causes encoded in the worker (a Pod of 300,000 empty containers
 * validated on the loop held it for seconds). A valid object whose stored form
 * is already over the limit gets etcd's refusal; its stored form is at least
 * the defaulted body (less the status the create clears) plus the create's one
 * managedFields entry (a 51,698-key ConfigMap's entry lists every key, which is
 * what takes a 1.4 MB body past 1.5 MiB), and the uid, timestamp and key the
 * loop adds only make it larger. A valid object under the limit goes to the
 * loop with its managedFields entry (the loop stamps its time): 50,000 keys
 * cost 50 to 200 ms of CPU to track, which no longer runs on the loop.
 * Departure: a large body is answered before admission, so a missing namespace
 * is not NamespaceLifecycle's 404 for it. Objects whose name the store must
 * still generate take the usual path.
 */
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import type { Unstructured } from '../../api/unstructured.js';
import { kindKey } from '../../api/resources.js';
import { applyDefaults } from '../../api/defaults/index.js';
import { validateCreate } from '../../api/validation/index.js';
import { maxStoredRequestBytes } from '../../api/status.js';
import { resetFields, updateManagedFields } from '../../api/managedfields/index.js';
import { definitionNameFor } from '../../api/schema/definitions.js';
import { encodeInvalidStatus } from './invalid-status.js';
import type { ObjectBodyJob, ObjectBodyResult } from './object-body.js';

export type CreatePreflight = Pick<ObjectBodyResult, 'refusal' | 'managedFields'>;

export function createPreflight(job: ObjectBodyJob, obj: Unstructured | undefined): CreatePreflight | undefined {
  if (!obj?.metadata?.name) return undefined;
  const key = kindKey(job.endpoint);
  const copy: Unstructured = { ...obj, apiVersion: job.endpointApiVersion, kind: job.endpoint.kind };
  applyDefaults(key, copy);
  const errors = validateCreate(key, copy);
  const name = String(obj.metadata.name);
  if (errors.length) return { refusal: { name, invalid: encodeInvalidStatus(job.endpoint.kind, job.endpoint.group, name, errors, job.protobufAnswer === true) } };
  const managedFields = createManagedFields(job, key, copy);
  if (job.dryRun || storedBytesAtLeast(copy, managedFields, job.manager?.hasStatus === true) <= maxStoredRequestBytes) {
    return managedFields && { managedFields };
  }
  return { refusal: { name, tooLarge: true } };
}

/**
 * The create's managedFields as the store computes them (Store.create's managedFieldsFor: a create
 * from nothing, for its one manager), on the same defaulted object. Only when the result is that
 * manager's entry alone: not for a body that sends entries of its own (they keep their times), nor
 * for a kind without a built-in schema (its type is the store's to say).
 */
function createManagedFields(job: ObjectBodyJob, key: string, copy: Unstructured): ManagedFieldsEntry[] | undefined {
  const m = job.manager;
  if (!m || copy.metadata?.managedFields !== undefined || definitionNameFor(key) === undefined) return undefined;
  return updateManagedFields(undefined, copy, {
    kindKey: key, apiVersion: job.endpointApiVersion, manager: m.name, now: new Date(), ignoredFields: resetFields(m.hasStatus, undefined, undefined, copy),
  });
}

/** A lower bound of the stored JSON's size: the defaulted object (less a status the create clears) and its managedFields. */
function storedBytesAtLeast(copy: Unstructured, managedFields: ManagedFieldsEntry[] | undefined, hasStatus: boolean): number {
  const { status: _, ...rest } = copy;
  const bytes = Buffer.byteLength(JSON.stringify(hasStatus ? rest : copy));
  return managedFields?.length ? bytes + Buffer.byteLength(JSON.stringify(managedFields)) : bytes;
}

/**
 * Managed fields for Update operations (create, PUT, json/merge/strategic
 * patches, status and scale writes), as upstream's FieldManager.Update with
 * its managedFieldsUpdater:
 *  1. The managed fields come from the new object when it carries any (a
 *     client may rewrite them; [{}] resets them), else from the live object;
 *     subresource writes always take the live ones.
 *  2. The live object (the kind's zero value on create) is compared with the
 *     new one. Fields added or modified move to the writer: every other
 *     entry loses them. Fields removed leave every entry.
 *  3. The writer's entry (per manager, apiVersion and subresource) gains the
 *     changed fields and the current time; a write that changes nothing
 *     leaves its entry and time alone.
 */
import type { ManagedFieldsEntry, ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { compare } from './fieldset.js';
import { capManagers, decodeManagedFields, encodeManagedFields, managedTime, managerIdentifier, sortedForEncoding, strippedFields, type Managed } from './managers.js';
import { jsonEqual, listingKeysOnce } from './walk.js';
import type { FieldSet } from './set.js';
import { typeForKind } from './schema.js';
import { withZeroValues, zeroObject } from './zero.js';
import { createManagedFields } from './create-cache.js';

export interface WriteContext {
  /** `apps/v1/Deployment`. */
  kindKey: string;
  apiVersion: string;
  manager: string;
  subresource?: string;
  now: Date;
  /** Top-level fields the endpoint resets (upstream's ResetFieldsStrategy): never tracked. */
  ignoredFields?: readonly string[];
}

const statusKeeps = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/**
 * The top-level fields a write to this endpoint cannot change: status on the
 * main resource of a kind with a status subresource; everything but metadata
 * and status on /status.
 */
export function resetFields(hasStatus: boolean, subresource: string | undefined, ...objs: any[]): string[] {
  if (subresource === 'status') {
    return [...new Set(objs.flatMap((o) => Object.keys(o ?? {})))].filter((k) => !statusKeeps.has(k));
  }
  return hasStatus ? ['status'] : [];
}

/** A shallow copy without the ignored top-level fields. */
export function withoutFields(obj: any, fields: readonly string[] | undefined): any {
  if (!fields?.length || !obj) return obj;
  const out = { ...obj };
  for (const f of fields) delete out[f];
  return out;
}

/** Entries decoded from the new object unless absent, unreadable or a subresource write (rule 1). */
function decodeLiveOrNew(live: any, next: any, isSubresource: boolean): Managed {
  const liveEntries = live?.metadata?.managedFields;
  const newEntries = next?.metadata?.managedFields;
  if (!isSubresource) {
    if (Array.isArray(newEntries) && newEntries.length === 1 && Object.keys(newEntries[0] ?? {}).length === 0) return new Map();
    try {
      const managed = decodeManagedFields(newEntries);
      if (managed.size) return managed;
    } catch { /* fall back to the live object's, as upstream does */ }
  }
  try {
    return decodeManagedFields(liveEntries);
  } catch {
    return new Map();
  }
}

/** Update entries past which capManagers folds the oldest into "ancient-changes" (managers.ts). */
const maxUpdateEntries = 10;

/**
 * The answer of the general path when it cannot change any entry's set: nothing was removed and
 * every changed field belongs to the writer's entry alone (a Lease renewal, a status heartbeat).
 * Then the stored entries stay as they are, the writer's time renewed when something changed,
 * in encoding order; the sets are not re-encoded. Only for entries this server encoded itself (the
 * live object's, or the same sent back), so their FieldsV1 is already in canonical form.
 * Undefined when the general path must decide.
 */
function unchangedOwnership(live: any, managed: Managed, changed: FieldSet, removed: FieldSet, ctx: WriteContext, sentStored: () => boolean): ManagedFieldsEntry[] | undefined {
  const stored: ManagedFieldsEntry[] | undefined = live?.metadata?.managedFields;
  if (!Array.isArray(stored) || stored.length === 0 || stored.length !== managed.size || !removed.isEmpty()) return undefined;
  if (!sentStored()) return undefined;
  const id = managerIdentifier({ manager: ctx.manager, operation: 'Update', apiVersion: ctx.apiVersion, subresource: ctx.subresource });
  let updates = 0;
  for (const [eid, e] of managed) {
    if (e.set.isEmpty()) return undefined;
    if (e.operation === 'Update') updates++;
    if (changed.isEmpty()) continue;
    if (eid === id ? !changed.difference(e.set).isEmpty() : !e.set.intersection(changed).isEmpty()) return undefined;
  }
  if (updates > maxUpdateEntries) return undefined;
  // Copies of the entries (the live object may be the watch cache's, shared); their FieldsV1 is only ever read.
  const out = stored.map((e) => ({ ...e }));
  if (changed.isEmpty()) return sortedForEncoding(out);
  const writer = out.findIndex((e) => managerIdentifier({ manager: e.manager ?? '', operation: e.operation as 'Update', apiVersion: e.apiVersion ?? '', subresource: e.subresource || undefined }) === id);
  if (writer < 0) return undefined;
  out[writer].time = managedTime(ctx.now);
  return sortedForEncoding(out);
}

type WithMeta = { metadata?: ObjectMeta };

/** Whether the entries in force are the live object's as stored: a subresource write's, or the same sent back (or none sent). */
function storedSentBack(live: unknown, next: unknown, ctx: WriteContext): boolean {
  const stored = (live as WithMeta | undefined)?.metadata?.managedFields;
  const sent = (next as WithMeta | undefined)?.metadata?.managedFields;
  return !!ctx.subresource || sent === undefined || sent === stored || jsonEqual(sent, stored);
}

/**
 * The stored entries by identifier, to be written again as they are where this write leaves their
 * set alone: re-encoding a set costs a walk of it, and a pod's first entry (its creator's) covers the
 * whole spec, which a status write never touches. Only for entries this server encoded itself (the
 * live object's, or the same sent back), one per identifier, so their FieldsV1 is the canonical form
 * encoding the decoded set gives again. Undefined when they cannot be kept.
 */
function storedAsEncoded(live: unknown, managed: Managed, sentStored: () => boolean): Map<string, ManagedFieldsEntry> | undefined {
  const stored = (live as WithMeta | undefined)?.metadata?.managedFields;
  if (!Array.isArray(stored) || stored.length === 0 || stored.length !== managed.size) return undefined;
  if (!sentStored()) return undefined;
  const out = new Map<string, ManagedFieldsEntry>();
  for (const e of stored) {
    out.set(managerIdentifier({ manager: e.manager ?? '', operation: e.operation as 'Update', apiVersion: e.apiVersion ?? '', subresource: e.subresource || undefined }), e);
  }
  return out.size === managed.size ? out : undefined;
}

/** A shallow copy without metadata.managedFields. */
export function withoutManagedFields(obj: any): any {
  if (!obj?.metadata?.managedFields) return obj;
  const { managedFields: _m, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/**
 * The managedFields `next` should carry after `live` (undefined on create)
 * became `next`; undefined when they cannot be computed (upstream then drops them).
 */
export function updateManagedFields(live: any | undefined, next: any, ctx: WriteContext): ManagedFieldsEntry[] | undefined {
  if (live === undefined) {
    // A create: the same shape (a controller's template under another name) owns the same fields.
    const context = JSON.stringify([ctx.kindKey, ctx.apiVersion, ctx.manager, ctx.subresource ?? '', ctx.ignoredFields ?? []]);
    // The shape walk and the comparison share the key lists of wide maps (nothing here changes an object).
    return listingKeysOnce(() => createManagedFields(next, { type: typeForKind(ctx.kindKey), context }, managedTime(ctx.now), () => computeManagedFields(live, next, ctx)));
  }
  return listingKeysOnce(() => computeManagedFields(live, next, ctx));
}

/** updateManagedFields' general path. */
function computeManagedFields(live: unknown, next: unknown, ctx: WriteContext): ManagedFieldsEntry[] | undefined {
  try {
    const managed = decodeLiveOrNew(live, next, !!ctx.subresource);
    const type = typeForKind(ctx.kindKey);
    // Both sides as upstream's typed objects see them: value structs are never absent.
    const zero = zeroObject(ctx.kindKey);
    const before = withoutFields(withZeroValues(live ? withoutManagedFields(live) : {}, zero), ctx.ignoredFields);
    const after = withoutFields(withZeroValues(withoutManagedFields(next), zero), ctx.ignoredFields);
    const { added, modified, removed } = compare(before, after, type);
    const changed = added.union(modified).difference(strippedFields);
    // Asked by both shortcuts, answered once: a wide object's entries are 50,000 keys to compare.
    let sentIsStored: boolean | undefined;
    const sentStored = () => (sentIsStored ??= storedSentBack(live, next, ctx));
    const same = unchangedOwnership(live, managed, changed, removed, ctx, sentStored);
    if (same) return same;
    // Entries whose set this write leaves alone keep their stored FieldsV1 (see storedAsEncoded).
    const kept = storedAsEncoded(live, managed, sentStored);
    for (const [id, e] of managed) {
      if (e.set.intersection(changed).isEmpty() && e.set.intersection(removed).isEmpty()) continue;
      kept?.delete(id);
      e.set = e.set.difference(changed).difference(removed);
      if (e.set.isEmpty()) managed.delete(id);
    }
    if (!changed.isEmpty()) {
      const entry = { manager: ctx.manager, operation: 'Update' as const, apiVersion: ctx.apiVersion, subresource: ctx.subresource };
      const id = managerIdentifier(entry);
      const prev = managed.get(id);
      kept?.delete(id);
      managed.set(id, { ...entry, time: managedTime(ctx.now), set: prev ? prev.set.union(changed) : changed });
      const before = managed.size;
      capManagers(managed, ctx.now);
      // Folding into "ancient-changes" rewrites entries: encode them all.
      if (managed.size !== before) return encodeManagedFields(managed);
    }
    return encodeManagedFields(managed, kept);
  } catch {
    return undefined;
  }
}

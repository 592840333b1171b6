/**
 * Server-side apply (structured-merge-diff's Updater.Apply, with upstream's
 * fieldmanager chain around it):
 *  1. The configuration's field set (minus server-owned metadata and the
 *     fields the endpoint ignores) becomes the applier's entry.
 *  2. The configuration is merged into the live object (merge.ts).
 *  3. Fields the applier owned last time, no longer applies, and nobody
 *     else owns are removed (prune).
 *  4. The result is compared with the live object: a changed field owned by
 *     another manager is a conflict. Without force, conflicts fail with 409;
 *     with force, the other managers lose those fields. Removed fields leave
 *     every entry.
 *  5. For the manager "kubectl" (kubectl apply --server-side), conflicts on
 *     fields whose live value still equals the last-applied-configuration
 *     annotation are allowed: that is client-side apply's own state being
 *     taken over. The annotation is then rewritten from the configuration.
 */
import { FieldSet } from './set.js';
import { compare, ensureNamedFieldsAreMembers, toFieldSet } from './fieldset.js';
import { merge, removeItems } from './merge.js';
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { capManagers, decodeManagedFields, encodeManagedFields, managedTime, managerIdentifier, strippedFields, type Managed } from './managers.js';
import { applyConflictError, type Conflict } from './conflicts.js';
import { ownedOf, ownsNothing, StoredEntry, storedManagedFields } from './stored.js';
import { typeForKind } from './schema.js';
import { jsonEqual } from './walk.js';
import { withoutFields, withoutManagedFields, type WriteContext } from './update.js';
import type { TypeNode } from './types.js';

export const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

export interface ApplyContext extends WriteContext {
  force: boolean;
}

/** The object after applying `config` to `live` (undefined: create), with its managedFields. */
export function applyConfiguration(live: any | undefined, config: any, ctx: ApplyContext): any {
  // The live entries, their sets decoded when read (stored.ts); undecodable ones are dropped, as upstream does.
  let managed: Managed;
  const entries = live?.metadata?.managedFields;
  try { managed = storedManagedFields(entries) ?? decodeManagedFields(entries); } catch { managed = new Map(); }
  const type = typeForKind(ctx.kindKey);
  const current = live ? withoutManagedFields(live) : { apiVersion: config.apiVersion, kind: config.kind, metadata: {} };
  const applied = withoutFields(config, ctx.ignoredFields);
  const configSet = toFieldSet(applied, type).difference(strippedFields);
  const merged = merge(current, applied, type);
  const applierId = managerIdentifier({ manager: ctx.manager, operation: 'Apply', apiVersion: ctx.apiVersion, subresource: ctx.subresource });
  const last = managed.get(applierId);
  const lastSet = last?.set;
  managed.set(applierId, { manager: ctx.manager, operation: 'Apply', apiVersion: ctx.apiVersion, subresource: ctx.subresource, time: last?.time, set: configSet });
  // Only fields the applier stopped applying can be pruned; usually there are none.
  const dropped = lastSet ? lastSet.difference(configSet) : undefined;
  const result = dropped && !dropped.isEmpty() ? prune(merged, managed, dropped, type) : merged;
  resolveConflicts(current, result, managed, applierId, ctx, type);
  const entry = managed.get(applierId)!;
  if (!lastSet || !jsonEqual(current, result) || !lastSet.equals(configSet)) entry.time = managedTime(ctx.now);
  for (const [id, e] of managed) if (ownsNothing(e)) managed.delete(id);
  const before = managed.size;
  capManagers(managed, ctx.now);
  const out: any = result;
  if (ctx.manager === 'kubectl' && current.metadata?.annotations?.[lastAppliedAnnotation] !== undefined) {
    out.metadata.annotations = { ...out.metadata.annotations, [lastAppliedAnnotation]: buildLastApplied(config) };
  }
  // Entries this apply left alone are written as they were stored (folding into "ancient-changes" rewrites them all).
  out.metadata = { ...out.metadata, managedFields: encodeManagedFields(managed, managed.size === before ? unchangedEntries(managed) : undefined) };
  return out;
}

/** The stored form of every entry still as it was stored, by identifier. */
function unchangedEntries(managed: Managed): Map<string, ManagedFieldsEntry> {
  const out = new Map<string, ManagedFieldsEntry>();
  for (const [id, e] of managed) {
    const stored = e instanceof StoredEntry ? e.unchanged() : undefined;
    if (stored) out.set(id, stored);
  }
  return out;
}

/**
 * Step 3, as upstream's prune with addBackOwnedItems and addBackDanglingItems;
 * `lastSet` is what the applier owned before and no longer applies.
 */
function prune(merged: unknown, managed: Managed, lastSet: FieldSet, type: TypeNode): unknown {
  const owned = FieldSet.unionOf([...managed.values()].map((e) => e.set));
  const mergedSet = ensureNamedFieldsAreMembers(toFieldSet(merged, type), type);
  const toRemove = mergedSet
    .intersection(ensureNamedFieldsAreMembers(lastSet, type))
    .difference(ensureNamedFieldsAreMembers(owned, type))
    .difference(strippedFields);
  return toRemove.isEmpty() ? merged : removeItems(merged, toRemove, type);
}

/**
 * Step 4 and 5: throws the 409 unless forced or allowed; otherwise moves ownership.
 * Each other entry is compared with what changed (ownedOf walks the change, not the entry) and
 * rewritten only when it loses something.
 */
function resolveConflicts(live: any, result: any, managed: Managed, applierId: string, ctx: ApplyContext, type: TypeNode): void {
  const { added, modified, removed } = compare(live, result, type);
  const changed = added.union(modified);
  const conflicts = new Map<string, FieldSet>();
  for (const [id, e] of managed) {
    if (id === applierId) continue;
    const overlap = ownedOf(e, changed);
    if (!overlap.isEmpty()) conflicts.set(id, overlap);
  }
  if (conflicts.size && !ctx.force) {
    const allowed = ctx.manager === 'kubectl' ? allowedByLastApplied(live, type) : undefined;
    const remaining: Conflict[] = [];
    for (const [managerId, set] of conflicts) {
      for (const path of (allowed ? set.difference(allowed) : set).paths()) remaining.push({ managerId, path });
    }
    if (remaining.length) throw applyConflictError(remaining);
  }
  if (removed.isEmpty() && !conflicts.size) return;
  for (const [id, e] of managed) {
    if (id === applierId) continue;
    const lost = conflicts.get(id);
    if (!lost && ownedOf(e, removed).isEmpty()) continue;
    e.set = (lost ? e.set.difference(lost) : e.set).difference(removed);
  }
}

/** Fields the last-applied annotation sets to the values they still have (upstream's lastAppliedManager). */
function allowedByLastApplied(live: any, type: TypeNode): FieldSet | undefined {
  const text = live?.metadata?.annotations?.[lastAppliedAnnotation];
  if (!text) return undefined;
  let lastApplied: unknown;
  try { lastApplied = JSON.parse(text); } catch { return undefined; }
  try {
    const set = toFieldSet(lastApplied, type);
    return set.difference(compare(lastApplied, live, type).modified);
  } catch {
    return undefined;
  }
}

/**
 * The annotation's new value: the configuration without the annotation itself,
 * encoded as upstream's unstructured JSON encoder does (sorted keys, a final newline).
 */
function buildLastApplied(config: any): string {
  const copy = structuredClone(config);
  if (copy.metadata?.annotations) {
    delete copy.metadata.annotations[lastAppliedAnnotation];
  }
  return `${JSON.stringify(sortedKeys(copy))}\n`;
}

function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortedKeys((v as Record<string, unknown>)[k]);
  return out;
}


/**
 * metadata.managedFields as upstream's fieldmanager keeps it: one entry per
 * (manager, operation, subresource, and for updates apiVersion), each with the
 * set of fields that manager owns (FieldsV1) and the time of its last change.
 */
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { FieldSet } from './set.js';
import { fieldElement } from './path.js';
import { rfc3339 } from '../../util/clock.js';

export type Operation = 'Apply' | 'Update';

export interface ManagerEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource?: string;
  time?: string;
  set: FieldSet;
}

/** Entries by identifier (see managerIdentifier). */
export type Managed = Map<string, ManagerEntry>;

/**
 * Upstream's BuildManagerIdentifier: the entry's JSON without fields and time;
 * appliers without apiVersion, so applying in another version keeps one entry.
 */
export function managerIdentifier(e: { manager: string; operation: Operation; apiVersion: string; subresource?: string }): string {
  const id: Record<string, string> = { manager: e.manager, operation: e.operation };
  if (e.operation !== 'Apply') id.apiVersion = e.apiVersion;
  if (e.subresource) id.subresource = e.subresource;
  return JSON.stringify(id);
}

/** Decodes metadata.managedFields; throws an Error with upstream's reason when an entry is malformed. */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): Managed {
  const out: Managed = new Map();
  for (const [i, e] of (entries ?? []).entries()) {
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error(`error decoding managed fields entry ${i}: operation must be "Apply" or "Update"`);
    if (e.fieldsType !== 'FieldsV1') throw new Error(`error decoding managed fields entry ${i}: invalid fieldsType "${e.fieldsType ?? ''}"`);
    const entry: ManagerEntry = {
      manager: e.manager ?? '', operation: e.operation, apiVersion: e.apiVersion ?? '',
      subresource: e.subresource || undefined, time: e.time, set: FieldSet.fromFieldsV1(e.fieldsV1 ?? {}),
    };
    const id = managerIdentifier(entry);
    const prev = out.get(id);
    // Duplicate identifiers are merged, as upstream decodes them into one map entry.
    out.set(id, prev ? { ...entry, set: prev.set.union(entry.set) } : entry);
  }
  return out;
}

type Sortable = { operation?: string; time?: string; manager?: string; apiVersion?: string; subresource?: string };

const cmpText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Upstream's order of two entries, given their times in seconds. */
const compareEntries = (p: Sortable, pt: number, q: Sortable, qt: number) => cmpText(p.operation ?? '', q.operation ?? '') || pt - qt
  || cmpText(p.manager ?? '', q.manager ?? '') || cmpText(p.apiVersion ?? '', q.apiVersion ?? '') || cmpText(p.subresource ?? '', q.subresource ?? '');

/**
 * The indices of `entries` in upstream's order (Apply before Update, then by time in seconds,
 * manager, apiVersion, subresource), or undefined when they already are in it: a write by one of
 * M managers usually leaves the live order as it was (its entry's time moves only when the second
 * changes), and then nothing is sorted or copied.
 */
function encodingOrder(entries: readonly Sortable[]): number[] | undefined {
  // Each time is parsed once, not once per comparison: a sort of M entries compares M log M times.
  // Entries written in one second share their time's text: it is parsed once for all of them.
  const parsed = new Map<string, number>();
  const seconds = (t?: string) => {
    if (!t) return 0;
    let s = parsed.get(t);
    if (s === undefined) { s = Math.floor(Date.parse(t) / 1000); parsed.set(t, s); }
    return s;
  };
  const at = entries.map((e) => seconds(e.time));
  let inOrder = true;
  for (let i = 1; i < entries.length && inOrder; i++) inOrder = compareEntries(entries[i - 1]!, at[i - 1]!, entries[i]!, at[i]!) <= 0;
  if (inOrder) return undefined;
  // Stable, as the sort of the entries themselves was.
  return entries.map((_, i) => i).sort((i, j) => compareEntries(entries[i]!, at[i]!, entries[j]!, at[j]!));
}

/** `entries` in upstream's order (encodingOrder), as a new array. */
export function sortedForEncoding<T extends Sortable>(entries: readonly T[]): T[] {
  const order = encodingOrder(entries);
  return order ? order.map((i) => entries[i]!) : [...entries];
}

/**
 * Encodes entries in upstream's order: Apply before Update, then by time, manager, apiVersion, subresource.
 * `kept`: entries (by identifier) whose stored form is written again as is (a copy), not re-encoded;
 * their sets are not read (an apply's stored entries decode on first read: stored.ts).
 */
export function encodeManagedFields(managed: Managed, kept?: ReadonlyMap<string, ManagedFieldsEntry>): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  // forEach, not a spread of the entries: no [id, entry] array per manager.
  const ids: string[] = [];
  const entries: ManagerEntry[] = [];
  managed.forEach((e, id) => { ids.push(id); entries.push(e); });
  const order = encodingOrder(entries);
  for (let k = 0; k < entries.length; k++) {
    const i = order ? order[k]! : k;
    const id = ids[i]!;
    const e = entries[i]!;
    const stored = kept?.get(id);
    // The watch cache's frozen entry is written again as that very object: nothing can change it, and
    // the cache would otherwise compare the copy with it and keep the frozen one anyway (compact.ts),
    // for each of an object's M managers on every write. Any other stored entry may be someone's to
    // change later: a copy (its FieldsV1 is only ever read).
    if (stored) { out.push(Object.isFrozen(stored) ? stored : { ...stored }); continue; }
    if (e.set.isEmpty()) continue;
    // Go's omitempty: an empty manager (no fieldManager, no User-Agent) is not written.
    const entry: ManagedFieldsEntry = {};
    if (e.manager) entry.manager = e.manager;
    entry.operation = e.operation;
    if (e.apiVersion) entry.apiVersion = e.apiVersion;
    if (e.time) entry.time = e.time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = e.set.toFieldsV1();
    if (e.subresource) entry.subresource = e.subresource;
    out.push(entry);
  }
  return out;
}

/** metav1.Time: RFC 3339 in UTC with second precision (every write of a second shares one string). */
export const managedTime = (now: Date): string => rfc3339(now);

/**
 * Fields the server owns, never tracked for a manager (upstream's stripMetaManager).
 * Removed as single paths (not with what is below them), as upstream does.
 */
export const strippedFields: FieldSet = FieldSet.of(
  [fieldElement('apiVersion')], [fieldElement('kind')], [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']
    .map((f) => [fieldElement('metadata'), fieldElement(f)]),
);

/** Upstream caps Update entries at 10; older ones fold into "ancient-changes". */
const maxUpdateManagers = 10;

export function capManagers(managed: Managed, now: Date): void {
  // Counted first: nearly every write is under the cap, and listing the entries cost an array per entry.
  let count = 0;
  for (const e of managed.values()) if (e.operation === 'Update' && e.manager !== 'ancient-changes') count++;
  if (count <= maxUpdateManagers) return;
  const updates = [...managed.entries()].filter(([, e]) => e.operation === 'Update' && e.manager !== 'ancient-changes');
  updates.sort(([, a], [, b]) => Date.parse(a.time ?? '') - Date.parse(b.time ?? ''));
  for (const [id, e] of updates.slice(0, updates.length - maxUpdateManagers + 1)) {
    const key = managerIdentifier({ manager: 'ancient-changes', operation: 'Update', apiVersion: e.apiVersion, subresource: e.subresource });
    const prev = managed.get(key);
    managed.set(key, { manager: 'ancient-changes', operation: 'Update', apiVersion: e.apiVersion, subresource: e.subresource, time: managedTime(now), set: prev ? prev.set.union(e.set) : e.set });
    managed.delete(id);
  }
}

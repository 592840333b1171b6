/**
 * A live object's managedFields entries for server-side apply, each field set decoded only when
 * an apply needs it. An apply by one manager changes its own entry and, on a conflict or a
 * removal, the few entries that owned what changed; the others are written back as they were
 * stored. Decoding and re-encoding every entry made each apply to an object with M managers cost
 * M field-set walks twice over (2,000 managers on one ConfigMap: bench/ssa-managers.ts).
 *
 * Contract:
 *  - Only for entries this server encoded itself (a live object's: every write stores encoded or
 *    validated entries, update.ts), so a stored FieldsV1 is the canonical form encoding the
 *    decoded set gives again.
 *  - Every FieldsV1 is checked as decoding would check it (a walk that builds nothing), so a
 *    malformed one is refused at once, as decodeManagedFields refuses it, and the caller drops the
 *    live entries as upstream does; `set` then decodes on first read and cannot fail.
 *  - Assigning `set` or `time` makes the entry changed: it is then encoded anew.
 */
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { FieldSet, type FieldsV1 } from './set.js';
import { isValidPathElement } from './path.js';
import { managerIdentifier, type Managed, type ManagerEntry, type Operation } from './managers.js';

export class MalformedManagedFields extends Error {}

export class StoredEntry implements ManagerEntry {
  readonly manager: string;
  readonly operation: Operation;
  readonly apiVersion: string;
  readonly subresource?: string;
  time?: string;
  private decoded?: FieldSet;
  private replaced = false;

  constructor(readonly stored: ManagedFieldsEntry) {
    this.manager = stored.manager ?? '';
    this.operation = stored.operation as Operation;
    this.apiVersion = stored.apiVersion ?? '';
    this.subresource = stored.subresource || undefined;
    this.time = stored.time;
  }

  get set(): FieldSet {
    return this.decoded ??= FieldSet.fromFieldsV1(this.stored.fieldsV1 ?? {});
  }

  set set(s: FieldSet) {
    this.decoded = s;
    this.replaced = true;
  }

  /** The stored FieldsV1 while the set was not read (reading it costs what this class saves). */
  get fieldsV1(): FieldsV1 | undefined {
    return this.decoded ? undefined : this.stored.fieldsV1 as FieldsV1;
  }

  /** The stored entry, when this one is still what it says. */
  unchanged(): ManagedFieldsEntry | undefined {
    return this.replaced || this.time !== this.stored.time ? undefined : this.stored;
  }
}

/**
 * The live object's entries by identifier, sets not yet decoded. Throws MalformedManagedFields
 * where decodeManagedFields throws (a bad operation, fieldsType or FieldsV1); undefined for a
 * repeated identifier (which this server never writes), which decodeManagedFields merges.
 */
export function storedManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): Managed | undefined {
  const out: Managed = new Map();
  if (!entries) return out;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const entry = new StoredEntry(e);
    const id = checkedFrozen.get(e) ?? checked(e, i, entry);
    if (out.has(id)) return undefined;
    out.set(id, entry);
  }
  return out;
}

/**
 * Identifiers of frozen entries already checked. An entry a write left as it was is the previous
 * version's frozen object (registry/watch-cache/compact.ts), so an apply by one of M managers meets
 * M-1 entries it checked before: each was walked (its FieldsV1) and its identifier built again per
 * apply (sixteen managers applying in turn, issue 19's attack 4). Frozen, with a frozen FieldsV1
 * (the cache's shared field sets), it cannot have changed since.
 */
const checkedFrozen = new WeakMap<ManagedFieldsEntry, string>();

/** Checks entry `i` as decodeManagedFields would and answers its identifier (kept when it cannot change). */
function checked(e: ManagedFieldsEntry, i: number, entry: StoredEntry): string {
  if (e.operation !== 'Apply' && e.operation !== 'Update') throw new MalformedManagedFields(`managed fields entry ${i}: operation`);
  const json: unknown = e.fieldsV1;
  if (e.fieldsType !== 'FieldsV1' || (json !== undefined && !isWellFormed(json))) {
    throw new MalformedManagedFields(`managed fields entry ${i}: fieldsV1`);
  }
  const id = managerIdentifier(entry);
  if (Object.isFrozen(e) && (json === undefined || Object.isFrozen(json))) checkedFrozen.set(e, id);
  return id;
}

/** `set` ∩ the entry's set, walking `set` (small: what one write changed) rather than the entry's. */
export function ownedOf(entry: ManagerEntry, set: FieldSet): FieldSet {
  const raw = entry instanceof StoredEntry ? entry.fieldsV1 : undefined;
  if (raw === undefined) return entry.set.intersection(set);
  // Most entries share nothing with a write: found without building anything, answered with one
  // shared empty set (sets are never changed once returned: set.ts), not a new one per entry.
  if (!overlaps(set, raw)) return noFields;
  const out = new FieldSet();
  intersectInto(out, set, raw);
  return out;
}

/** The empty set ownedOf answers for an entry that owns none of a write's fields; never filled. */
const noFields = new FieldSet();

/** Whether the entry owns nothing (without decoding a stored set: its top level says). */
export function ownsNothing(entry: ManagerEntry): boolean {
  const raw = entry instanceof StoredEntry ? entry.fieldsV1 : undefined;
  if (raw === undefined) return entry.set.isEmpty();
  for (const key in raw) if (key !== '.') return false;
  return true;
}

/**
 * As FieldSet.fromFieldsV1(json).intersection(set) for a well-formed json, read as readInto (set.ts)
 * reads it: a key is a member when its value is {} or holds "."; its other keys are its children.
 */
function intersectInto(out: FieldSet, set: FieldSet, json: FieldsV1): boolean {
  let any = false;
  for (const m of set.members) {
    const v = json[m];
    if (v === undefined || !Object.hasOwn(json, m)) continue;
    if (Object.hasOwn(v, '.') || isEmptyObject(v)) { out.members.add(m); any = true; }
  }
  for (const [pe, child] of set.children) {
    const v = json[pe];
    if (v === undefined || !Object.hasOwn(json, pe)) continue;
    const sub = new FieldSet();
    if (intersectInto(sub, child, v)) { out.children.set(pe, sub); any = true; }
  }
  return any;
}

/** Whether intersectInto would find anything. */
function overlaps(set: FieldSet, json: FieldsV1): boolean {
  for (const m of set.members) {
    const v = json[m];
    if (v !== undefined && Object.hasOwn(json, m) && (Object.hasOwn(v, '.') || isEmptyObject(v))) return true;
  }
  for (const [pe, child] of set.children) {
    const v = json[pe];
    if (v !== undefined && Object.hasOwn(json, pe) && overlaps(child, v)) return true;
  }
  return false;
}

function isEmptyObject(v: object): boolean {
  for (const _ in v) return false;
  return true;
}

/** What FieldSet.fromFieldsV1 accepts (readInto, set.ts): objects all the way down, every key but "." a path element. */
function isWellFormed(json: unknown): boolean {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return false;
  for (const key in json) {
    if (key === '.' || !Object.hasOwn(json, key)) continue;
    if (!isValidPathElement(key) || !isWellFormed((json as Record<string, unknown>)[key])) return false;
  }
  return true;
}

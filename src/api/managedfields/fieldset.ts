/**
 * From values to field sets, as structured-merge-diff's typed package does:
 *  - `toFieldSet`: the fields an applied configuration sets. Scalars, atomic
 *    lists and maps are leaves; list items and entries of maps (not struct
 *    fields) are members themselves; a struct field is a member only when
 *    its value is null or {}.
 *  - `compare`: what changed between two versions of an object, as Added,
 *    Modified and Removed sets. A value that appears or disappears is added
 *    or removed together with everything below it.
 *  - `ensureNamedFieldsAreMembers`: struct fields on the way to a member count
 *    as members (what pruning after an apply needs).
 */
import { FieldSet } from './set.js';
import { fieldElement, type PathElement } from './path.js';
import { childType, isGranularList, isGranularMap, isObject, jsonEqual, listItemElement, type JSONObject } from './walk.js';
import type { TypeNode } from './types.js';

export function toFieldSet(value: unknown, type: TypeNode): FieldSet {
  const out = new FieldSet();
  collect(out, [], value, type);
  return out;
}

function collect(out: FieldSet, path: PathElement[], value: unknown, t: TypeNode): void {
  if (isGranularMap(t, value)) {
    if (!isObject(value)) return;
    for (const [key, child] of Object.entries(value)) {
      const { type, named } = childType(t, key);
      path.push(fieldElement(key));
      collect(out, path, child, type);
      if (child === null || (isObject(child) && Object.keys(child).length === 0) || !named) out.insert(path);
      path.pop();
    }
    return;
  }
  if (isGranularList(t)) {
    if (!Array.isArray(value)) return;
    for (const item of value) {
      path.push(listItemElement(t, item));
      collect(out, path, item, t.item);
      out.insert(path);
      path.pop();
    }
    return;
  }
  if (path.length) out.insert(path);
}

export interface Comparison { added: FieldSet; modified: FieldSet; removed: FieldSet }

/** What changed from `lhs` to `rhs` (either may be undefined: absent). */
export function compare(lhs: unknown, rhs: unknown, type: TypeNode): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareAt(c, [], lhs, rhs, type);
  return c;
}

function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

function compareAt(c: Comparison, path: PathElement[], lhs: unknown, rhs: unknown, t: TypeNode): void {
  if (lhs === undefined && rhs === undefined) return;
  const shape = rhs === undefined ? lhs : rhs;
  const bothEmpty = isEmptyValue(lhs) && isEmptyValue(rhs);
  if (!bothEmpty && isGranularMap(t, shape) && (lhs === undefined || lhs === null || isObject(lhs)) && (rhs === undefined || rhs === null || isObject(rhs))) {
    compareMaps(c, path, (lhs ?? undefined) as JSONObject | undefined, (rhs ?? undefined) as JSONObject | undefined, t);
  } else if (!bothEmpty && isGranularList(t) && (lhs == null || Array.isArray(lhs)) && (rhs == null || Array.isArray(rhs))) {
    compareLists(c, path, (lhs ?? []) as unknown[], (rhs ?? []) as unknown[], t);
  } else {
    // A leaf: scalars, atomic values, and empty containers (which keeps {} apart from null).
    if (!path.length) return;
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
    else if (!jsonEqual(lhs, rhs)) c.modified.insert(path);
    return;
  }
  if (!path.length) return;
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}

function compareMaps(c: Comparison, path: PathElement[], lhs: JSONObject | undefined, rhs: JSONObject | undefined, t: TypeNode): void {
  const keys = new Set([...Object.keys(lhs ?? {}), ...Object.keys(rhs ?? {})]);
  for (const key of keys) {
    path.push(fieldElement(key));
    compareAt(c, path, lhs?.[key], rhs?.[key], childType(t, key).type);
    path.pop();
  }
}

function compareLists(c: Comparison, path: PathElement[], lhs: unknown[], rhs: unknown[], t: TypeNode & { kind: 'list' }): void {
  const left = indexItems(lhs, t);
  const right = indexItems(rhs, t);
  for (const pe of new Set([...left.keys(), ...right.keys()])) {
    const l = left.get(pe) ?? [];
    const r = right.get(pe) ?? [];
    path.push(pe);
    if (l.length <= 1 && r.length <= 1) {
      compareAt(c, path, l[0], r[0], t.item);
    } else if (l.length >= 2 && r.length >= 2) {
      // Duplicates on both sides compare as one atomic value.
      if (!jsonEqual(l, r)) c.modified.insert(path);
    } else if (l.length >= 2) {
      if (r.length) compareAt(c, path, undefined, r[0], t.item);
      c.removed.insert(path);
    } else {
      if (l.length) compareAt(c, path, l[0], undefined, t.item);
      c.added.insert(path);
    }
    path.pop();
  }
}

function indexItems(list: unknown[], t: TypeNode & { kind: 'list' }): Map<PathElement, unknown[]> {
  const out = new Map<PathElement, unknown[]>();
  for (const item of list) {
    const pe = listItemElement(t, item);
    const seen = out.get(pe);
    if (seen) seen.push(item); else out.set(pe, [item]);
  }
  return out;
}

/** `set` plus, as members, the struct fields that lead to its members. */
export function ensureNamedFieldsAreMembers(set: FieldSet, t: TypeNode): FieldSet {
  const out = new FieldSet();
  for (const m of set.members) out.members.add(m);
  for (const [pe, child] of set.children) {
    if (child.isEmpty()) continue;
    const sub = childTypeOf(t, pe);
    if (pe.startsWith('f:') && t.kind === 'struct' && t.field(pe.slice(2))) out.members.add(pe);
    const ensured = ensureNamedFieldsAreMembers(child, sub);
    out.children.set(pe, ensured);
  }
  return out;
}

/** The type below one path element. */
export function childTypeOf(t: TypeNode, pe: PathElement): TypeNode {
  if (pe.startsWith('f:')) return childType(t, pe.slice(2)).type;
  return t.kind === 'list' ? t.item : t;
}

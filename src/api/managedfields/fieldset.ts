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
import { childType, isGranularList, isGranularMap, isObject, jsonEqual, keysOf, listItemElement, type JSONObject } from './walk.js';
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

const noKeys: readonly string[] = [];

function compareAt(c: Comparison, path: PathElement[], lhs: unknown, rhs: unknown, t: TypeNode): void {
  if (lhs === undefined && rhs === undefined) return;
  const shape = rhs === undefined ? lhs : rhs;
  // Both sides empty (null against {}, or [] against absent) is a leaf, which keeps {} apart from
  // null; each side's keys are listed once, for that and for the walk (a wide map has 50,000).
  if (isGranularMap(t, shape) && (lhs == null || isObject(lhs)) && (rhs == null || isObject(rhs))) {
    const lk = lhs ? keysOf(lhs as JSONObject) : noKeys;
    const rk = rhs ? keysOf(rhs as JSONObject) : noKeys;
    if (lk.length || rk.length) {
      compareMaps(c, path, (lhs ?? undefined) as JSONObject | undefined, lk, (rhs ?? undefined) as JSONObject | undefined, rk, t);
      return presence(c, path, lhs, rhs);
    }
  } else if (isGranularList(t) && (lhs == null || Array.isArray(lhs)) && (rhs == null || Array.isArray(rhs))) {
    if ((lhs as unknown[] | null | undefined)?.length || (rhs as unknown[] | null | undefined)?.length) {
      compareLists(c, path, (lhs ?? []) as unknown[], (rhs ?? []) as unknown[], t);
      return presence(c, path, lhs, rhs);
    }
  }
  // A leaf: scalars, atomic values, and empty containers.
  if (!path.length) return;
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
  else if (!jsonEqual(lhs, rhs)) c.modified.insert(path);
}

/** A container that appeared or disappeared is added or removed itself too. */
function presence(c: Comparison, path: PathElement[], lhs: unknown, rhs: unknown): void {
  if (!path.length) return;
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}

function compareMaps(c: Comparison, path: PathElement[], lhs: JSONObject | undefined, lk: readonly string[], rhs: JSONObject | undefined, rk: readonly string[], t: TypeNode): void {
  // Each side's keys once, the right side's only where the left has none (no merged copy of both).
  // Own keys only: `rhs.constructor` of a key the other side lacks is Object's, not absent.
  for (const key of lk) compareKey(c, path, lhs![key], rhs && Object.hasOwn(rhs, key) ? rhs[key] : undefined, t, key);
  for (const key of rk) if (!lhs || !Object.hasOwn(lhs, key)) compareKey(c, path, undefined, rhs![key], t, key);
}

function compareKey(c: Comparison, path: PathElement[], l: unknown, r: unknown, t: TypeNode, key: string): void {
  // The same scalar on both sides (most of an update's wide map): a leaf that did not change.
  if (l === r && (l === null || typeof l !== 'object')) return;
  if ((l === undefined) !== (r === undefined)) {
    // (Not `l ?? r`: a null on one side is a value, added or removed.)
    wholeValue(nodeAt(l === undefined ? c.added : c.removed, path), fieldElement(key), l === undefined ? r : l, childType(t, key).type);
    return;
  }
  path.push(fieldElement(key));
  compareAt(c, path, l, r, childType(t, key).type);
  path.pop();
}

/** The node of `set` for `path`, created when absent (the caller then puts a member below it). */
function nodeAt(set: FieldSet, path: readonly PathElement[]): FieldSet {
  let node = set;
  for (const pe of path) node = node.child(pe);
  return node;
}

/**
 * compareAt where one side is absent (a field added or removed with all below it): the members it
 * would insert, put straight into the node above (`parent`, the added or the removed set's), so a
 * wide map's keys are not each walked down to from the root. `pe` is the value's own element.
 */
function wholeValue(parent: FieldSet, pe: PathElement, v: unknown, t: TypeNode): void {
  if (v === undefined) return;
  // An object's keys are listed once, emptiness included (a wide map's listing is most of its cost).
  const keys = isObject(v) && isGranularMap(t, v) ? keysOf(v) : undefined;
  if (keys?.length) {
    const node = parent.child(pe);
    for (const key of keys) wholeValue(node, fieldElement(key), (v as JSONObject)[key], childType(t, key).type);
    if (node.isEmpty()) parent.children.delete(pe);
  } else if (Array.isArray(v) && v.length && isGranularList(t)) {
    const node = parent.child(pe);
    for (const [item, same] of indexItems(v, t)) {
      // Duplicates compare as one atomic value: the item's element alone, as compareLists does.
      if (same.length === 1) wholeValue(node, item, same[0], t.item);
      else node.members.add(item);
    }
    if (node.isEmpty()) parent.children.delete(pe);
  }
  parent.members.add(pe);
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

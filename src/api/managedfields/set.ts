/**
 * A set of field paths stored as a trie, as structured-merge-diff's
 * fieldpath.Set: at each level the elements that are members themselves and
 * the children that lead to deeper members. A node is a member and a parent
 * at once when both the item and some of its fields are owned; FieldsV1 then
 * writes the node itself as `".": {}`.
 */
import { comparePathElements, isValidPathElement, Path, PathElement } from './path.js';
import { appendAll } from '../append.js';

/** FieldsV1 JSON: every key a path element (or "."), every value an object. */
export type FieldsV1 = { [key: string]: FieldsV1 };

export class FieldSet {
  readonly members = new Set<PathElement>();
  readonly children = new Map<PathElement, FieldSet>();

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: Path): void {
    if (!path.length) return;
    let node = path.length > 1 ? this.child(path[0]) : undefined;
    for (let i = 1; i < path.length - 1; i++) node = node!.child(path[i]);
    (node ?? this).members.add(path[path.length - 1]);
  }

  /** The child set for `pe`, created when absent. */
  child(pe: PathElement): FieldSet {
    let c = this.children.get(pe);
    if (!c) { c = new FieldSet(); this.children.set(pe, c); }
    return c;
  }

  has(path: Path): boolean {
    if (!path.length) return false;
    if (path.length === 1) return this.members.has(path[0]);
    return this.children.get(path[0])?.has(path.slice(1)) ?? false;
  }

  /** Children are never empty (every operation prunes them), so this is O(1). */
  isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const m of other.members) out.members.add(m);
    for (const [pe, c] of this.children) out.children.set(pe, c.union(other.children.get(pe) ?? empty));
    for (const [pe, c] of other.children) if (!out.children.has(pe)) out.children.set(pe, c.union(empty));
    return out.pruned();
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      if (o) out.children.set(pe, c.intersection(o));
    }
    return out.pruned();
  }

  /**
   * The union of many sets, built in one set: a fold of `union` copies the growing result once
   * per set (quadratic in the number of sets: every manager's entry at a prune).
   */
  static unionOf(sets: Iterable<FieldSet>): FieldSet {
    const out = new FieldSet();
    for (const s of sets) addInto(out, s);
    return out;
  }

  /** Members of this set that are not members of `other` (their descendants stay). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) out.children.set(pe, c.difference(other.children.get(pe) ?? empty));
    return out.pruned();
  }

  /** difference, also dropping everything below a member of `other`. */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      if (other.members.has(pe)) continue;
      out.children.set(pe, c.recursiveDifference(other.children.get(pe) ?? empty));
    }
    return out.pruned();
  }

  equals(other: FieldSet): boolean {
    if (this.members.size !== other.members.size || this.children.size !== other.children.size) return false;
    for (const m of this.members) if (!other.members.has(m)) return false;
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      if (!o || !c.equals(o)) return false;
    }
    return true;
  }

  /** Every member path, members before children at each level, in upstream's element order. */
  paths(prefix: PathElement[] = []): Path[] {
    const out: Path[] = [];
    for (const m of sorted(this.members)) out.push([...prefix, m]);
    for (const pe of sorted(this.children.keys())) appendAll(out, this.children.get(pe)!.paths([...prefix, pe]));
    return out;
  }

  toFieldsV1(): FieldsV1 {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): FieldsV1 {
    const out: FieldsV1 = {};
    if (includeSelf) out['.'] = {};
    const keys = new Set<PathElement>([...this.members, ...this.children.keys()]);
    for (const pe of sorted(keys)) {
      const c = this.children.get(pe);
      out[pe] = c ? c.emit(this.members.has(pe)) : {};
    }
    return out;
  }

  /** Parses FieldsV1; throws an Error naming the bad element (callers turn it into upstream's message). */
  static fromFieldsV1(json: unknown): FieldSet {
    const out = new FieldSet();
    readInto(out, json);
    return out.pruned();
  }

  /** Drops empty children, so structural equality and isEmpty stay cheap. */
  private pruned(): this {
    for (const [pe, c] of this.children) if (c.isEmpty()) this.children.delete(pe);
    return this;
  }
}

const empty = new FieldSet();

/** Adds `set`'s members to `out` in place (`set` is pruned, so `out` stays pruned). */
function addInto(out: FieldSet, set: FieldSet): void {
  for (const m of set.members) out.members.add(m);
  for (const [pe, c] of set.children) addInto(out.child(pe), c);
}

const sorted = (pes: Iterable<PathElement>) => [...pes].sort(comparePathElements);

function readInto(set: FieldSet, json: unknown): void {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new Error('expected an object');
  for (const [key, value] of Object.entries(json as Record<string, unknown>)) {
    if (key === '.') continue;
    if (!isValidPathElement(key)) throw new Error(`parsing JSON: invalid path element ${JSON.stringify(key)}`);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('expected an object');
    const entries = Object.keys(value);
    if (entries.length === 0 || Object.hasOwn(value, '.')) set.members.add(key);
    if (entries.some((k) => k !== '.')) readInto(set.child(key), value);
  }
}

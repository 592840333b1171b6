/**
 * A set of field paths stored as a trie, as structured-merge-diff's
 * fieldpath.Set: at each level the elements that are members themselves and
 * the children that lead to deeper members. A node is a member and a parent
 * at once when both the item and some of its fields are owned; FieldsV1 then
 * writes the node itself as `".": {}`.
 *
 * A set is never changed once an operation has returned it (only `insert`, `child` and the
 * parsers fill sets they are building), so operations share the subtrees they leave alone.
 */
import { isValidPathElement, Path, PathElement, sortPathElements } from './path.js';
import { appendAll } from '../append.js';

/** Sets parsed from frozen FieldsV1 objects, kept while the object lives (FieldSet.fromFieldsV1). */
const decodedFrozen = new WeakMap<object, FieldSet>();

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
    // Sets are never changed once built, so a side the other leaves alone is shared, not copied:
    // a wide map's 50,000 members are walked once, not once per operation (issue #19).
    if (other.isEmpty()) return this;
    if (this.isEmpty()) return other;
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const m of other.members) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      out.children.set(pe, o ? c.union(o) : c);
    }
    for (const [pe, c] of other.children) if (!out.children.has(pe)) out.children.set(pe, c);
    return out;
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
    if (other.isEmpty() || this.isEmpty()) return this;
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      out.children.set(pe, o ? c.difference(o) : c);
    }
    return out.pruned();
  }

  /** difference, also dropping everything below a member of `other`. */
  recursiveDifference(other: FieldSet): FieldSet {
    if (other.isEmpty() || this.isEmpty()) return this;
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      if (other.members.has(pe)) continue;
      const o = other.children.get(pe);
      out.children.set(pe, o ? c.recursiveDifference(o) : c);
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
    const keys = this.children.size === 0 ? this.members : new Set<PathElement>([...this.members, ...this.children.keys()]);
    const out: FieldsV1 = keys.size > manyKeys ? dictionaryObject() : {};
    if (includeSelf) out['.'] = leaf;
    for (const pe of sorted(keys)) {
      const c = this.children.get(pe);
      out[pe] = c ? c.emit(this.members.has(pe)) : leaf;
    }
    return out;
  }

  /**
   * Parses FieldsV1; throws an Error naming the bad element (callers turn it into upstream's message).
   * A frozen FieldsV1 (the watch cache's shared field sets: registry/watch-cache/compact.ts) can never
   * change, so its set is parsed once and kept beside it: every update decodes the live object's
   * entries, and a Lease renewal (500 a second at 5,000 nodes) parsed the kubelet's same set each time.
   */
  static fromFieldsV1(json: unknown): FieldSet {
    const frozen = json !== null && typeof json === 'object' && Object.isFrozen(json);
    const known = frozen ? decodedFrozen.get(json) : undefined;
    if (known) return known;
    const out = new FieldSet();
    readInto(out, json);
    out.pruned();
    if (frozen) decodedFrozen.set(json, out);
    return out;
  }

  /** Drops empty children, so structural equality and isEmpty stay cheap. */
  private pruned(): this {
    for (const [pe, c] of this.children) if (c.isEmpty()) this.children.delete(pe);
    return this;
  }
}

/** Adds `set`'s members to `out` in place (`set` is pruned, so `out` stays pruned). */
function addInto(out: FieldSet, set: FieldSet): void {
  for (const m of set.members) out.members.add(m);
  for (const [pe, c] of set.children) addInto(out.child(pe), c);
}

/**
 * Every leaf of an encoded set is this one frozen `{}`, as the watch cache's pool makes them
 * (src/util/shared-trees.ts): a fresh object per member, each held by a wide map's large
 * backing store, made every young-generation collection rescan that store (~35 of 50 ms to
 * encode 50,000 members, issue #19). FieldsV1 is only ever read.
 */
const leaf: FieldsV1 = Object.freeze({});

/** Past this many keys a node is built as a dictionary from its first key (see dictionaryObject). */
const manyKeys = 128;

/**
 * An empty plain object already in V8's dictionary mode (a deleted property puts it there): a wide
 * node built key by key from `{}` first goes through a hidden class per key until V8 gives up on
 * them, which was half of encoding 50,000 members (~20 of 40 ms). Key order is insertion order all
 * the same (JSON.stringify's).
 */
function dictionaryObject(): FieldsV1 {
  const o: FieldsV1 = { '': leaf };
  delete o[''];
  return o;
}

const sorted = (pes: Iterable<PathElement>) => sortPathElements([...pes]);

function readInto(set: FieldSet, json: unknown): void {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new Error('expected an object');
  for (const key of Object.keys(json)) {
    if (key === '.') continue;
    const value = (json as Record<string, unknown>)[key];
    if (!isValidPathElement(key)) throw new Error(`parsing JSON: invalid path element ${JSON.stringify(key)}`);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('expected an object');
    // Whether the node is itself a member ("." or no keys) and has members below, without listing
    // its keys: most nodes are leaves, 50,000 of them in a wide map's set.
    let self = false;
    let below = false;
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      if (k === '.') self = true; else below = true;
      if (self && below) break;
    }
    if (self || !below) set.members.add(key);
    if (below) readInto(set.child(key), value);
  }
}

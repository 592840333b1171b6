import { freshObject } from './fresh-object.js';

/**
 * One shared, frozen copy of each JSON subtree that repeats across the objects a cache keeps:
 * hash-consing, as StringPool (intern.ts) does for strings. Built for managedFields' fieldsV1,
 * which was two thirds of the watch cache at 5,000 nodes and 10,000 pods (bench/memory.ts,
 * a heap snapshot summarized by bench/heap-summary.ts: 110 of 168 MiB, 2.1 million small
 * objects): a field set is a tree of objects whose keys name fields (`f:spec`, `k:{...}`) and
 * whose leaves are `{}`, and a kind's objects written by one manager have the same tree, or
 * trees that differ in a few leaves (a pod's IP), so their subtrees are shared.
 *
 * Contract:
 *  - intern(tree) returns a tree equal to `tree` (same keys in the same order, same values, so
 *    JSON.stringify gives the same text); shared subtrees are frozen. `tree` itself is changed in
 *    place (a child replaced by its equal shared copy) and may be returned frozen, or a frozen
 *    copy of it returned (freshNodes): call it on a tree nothing else holds yet, as a cache does
 *    when an object enters it, and keep what it returns; nobody may mutate it.
 *  - Objects and arrays of plain JSON values are shared; a subtree holding anything else
 *    (undefined, a function, a byte array) and its ancestors are left as they are.
 *  - The pool forgets: at most 2 x `generationSize` subtrees in two generations, as StringPool;
 *    a subtree found in the old generation moves to the young one, so the ones that repeat stay
 *    and a unique one (a pod IP's leaf) leaves within two generations.
 *  - Walked by recursion at most `maxDepth` levels deep: a deeper subtree (a custom resource's
 *    field set nests as deep as its body) is left as it is, and so are its ancestors.
 *  - Symbol-keyed properties are not part of a tree (JSON has none).
 */
export class TreePool {
  /** Pooled nodes by the hash of their content (a 30-bit number: a key string per node cost more than the node). */
  private young = new Map<number, object>();
  private old = new Map<number, object>();
  /**
   * The content hash of each node found shared (pooled, then met again), which its parents' hashes
   * mix in: a shared node is hashed once, not walked again. A node met once (a pod's IP, its
   * container ID) gets no entry: most of a pod's subtrees that do not repeat never do, and an entry
   * each cost about as much as what sharing the repeated ones saved (bench/RESULTS.md, `memory3`).
   */
  private readonly hashes = new WeakMap<object, number>();
  /** The one `{}` (hash 1): most of a field set's nodes are leaves. */
  private readonly empty = Object.freeze({});
  /** The content hash of what visit returned last (0: not shareable): a second return value without an allocation. */
  private lastHash = 0;
  /**
   * Frozen nodes found unshareable (the managed-fields create cache's field sets, shared by every
   * object created from them already): left alone at once the next time, not walked on every create.
   */
  private readonly leftAlone = new WeakSet<object>();
  /** A shared node's keys, read into the same array for every comparison. */
  private readonly scratch: string[] = [];
  /** visitLike's object children's hashes, one array per depth. */
  private readonly childHashes: number[][] = [];

  constructor(private readonly generationSize = 32_768, private readonly maxDepth = 64, private readonly opts: TreePoolOptions = {}) {
    this.hashes.set(this.empty, 1);
  }

  intern<T>(root: T): T {
    return isTree(root) ? this.visit(root, 0) as T : root;
  }

  /**
   * As intern, guided by `previous` (what the same place held before, or in an alike object: an
   * updated object's field set is usually its last one, a pod's containers those of the pod created
   * before it) when it is a frozen tree (a pool's): each node is compared with the node at the same
   * place in `previous` once its children are shared, and a node equal to it is that node, found by
   * comparing identities instead of hashing its keys and values. Only the nodes that differ are
   * hashed (visitLike). Before, a whole-tree comparison came first and a subtree differing in one
   * leaf (a pod's token volume name in its containers' volumeMounts) was then walked again to hash it.
   */
  internLike<T>(root: T, previous: unknown): T {
    if (!isTree(root)) return root;
    return (this.guided(root, previous) ? this.visitLike(root, previous, 0) : this.visit(root, 0)) as T;
  }

  /** Whether visitLike may walk `o` beside `like`: a pooled (frozen) node of the same kind, `o` new (unfrozen, not known). */
  private guided(o: object, like: unknown): like is object {
    return like !== o && isTree(like) && Object.isFrozen(like) && Array.isArray(o) === Array.isArray(like) && !Object.isFrozen(o);
  }

  /**
   * visit beside `like`: each object child is shared first (beside like's child at the same key or
   * index); then, when `o` has like's keys in like's order and the same children, like is the
   * answer, and its hash is not looked up (lastHash `unknownHash`) unless a parent that differs
   * needs it. Otherwise `o` is hashed as visit hashes it (the same hash, so the two walks find each
   * other's nodes), its object children's hashes taken from the first pass.
   */
  private visitLike(o: any, like: any, depth: number): object {
    if (depth >= this.maxDepth) { this.lastHash = 0; return o; }
    const hs = this.levelHashes(depth);
    let n = 0;
    let shareable = true;
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) {
        if (o[i] === null || typeof o[i] !== 'object') continue;
        const c = this.childLike(o, i, like[i], depth);
        if (c === -1) shareable = false;
        hs[n++] = c;
      }
    } else {
      for (const k in o) {
        if (o[k] === null || typeof o[k] !== 'object') continue;
        const c = this.childLike(o, k, like[k], depth);
        if (c === -1) shareable = false;
        hs[n++] = c;
      }
    }
    if (!shareable) { this.lastHash = 0; return o; }
    if (this.sameNode(o, like)) { this.lastHash = unknownHash; return like; }
    return this.hashWith(o, hs, depth);
  }

  /** child, beside `like` (the same place in the node visitLike walks beside); `unknownHash` for like's own node. */
  private childLike(o: any, k: string | number, like: unknown, depth: number): number {
    const v: unknown = o[k];
    if (!isTree(v)) return -1;
    const shared = this.guided(v, like) ? this.visitLike(v, like, depth + 1) : this.visit(v, depth + 1);
    if (this.lastHash === 0) return -1;
    if (shared !== v) o[k] = shared;
    return this.lastHash === unknownHash ? unknownHash : mix(6, this.lastHash);
  }

  /**
   * The shared copy of `o` (unfrozen, its object children shared already, what they mix in in
   * `hs` in order), hashed as visit hashes it: keys and values other than objects hashed here,
   * and a child found equal to like's looked up (or hashed) now.
   */
  private hashWith(o: any, hs: number[], depth: number): object {
    let n = 0;
    let h: number;
    if (Array.isArray(o)) {
      h = 0x2f1b3c5d;
      for (let i = 0; i < o.length; i++) {
        const c = this.hashOf(o, i, hs, n, depth);
        if (o[i] !== null && typeof o[i] === 'object') n++;
        if (c < 0) { this.lastHash = 0; return o; }
        h = mix(h, c);
      }
    } else {
      h = 0x5bd1e995;
      let empty = true;
      for (const k in o) {
        empty = false;
        const c = this.hashOf(o, k, hs, n, depth);
        if (o[k] !== null && typeof o[k] === 'object') n++;
        if (c < 0) { this.lastHash = 0; return o; }
        h = mix(mix(h, hashString(k)), c);
      }
      if (empty) { this.lastHash = 1; return this.empty; }
    }
    return this.share(o, (h & 0x3fffffff) || 2);
  }

  /** What hashWith mixes in for the child `k` of `o`; `hs[n]` what visitLike found for it when it is an object. */
  private hashOf(o: any, k: string | number, hs: number[], n: number, depth: number): number {
    const v: unknown = o[k];
    if (v === null || typeof v !== 'object') return valueHash(v);
    if (hs[n] !== unknownHash) return hs[n]!;
    const shared = this.visit(v, depth + 1);
    if (this.lastHash === 0) return -1;
    if (shared !== v) o[k] = shared;
    return mix(6, this.lastHash);
  }

  /** The scratch array for the object children's hashes of a node at `depth` (one per depth, reused). */
  private levelHashes(depth: number): number[] {
    let hs = this.childHashes[depth];
    if (hs === undefined) { hs = []; this.childHashes[depth] = hs; }
    return hs;
  }

  /** The shared copy of `o` once its children are shared, or `o` when it cannot be shared (lastHash 0). */
  private visit(o: any, depth: number): object {
    // Only frozen nodes are known or left alone (a pool's nodes are frozen): an object JSON.parse just
    // made is not looked up (a WeakMap lookup gives it an identity hash first, for nothing).
    const frozen = Object.isFrozen(o);
    if (frozen) {
      const known = this.hashes.get(o);
      if (known !== undefined) { this.lastHash = known; return o; }
      if (this.leftAlone.has(o)) { this.lastHash = 0; return o; }
    }
    if (depth >= this.maxDepth) { this.lastHash = 0; return o; }
    // A frozen node (another cache's shared copy) cannot take its children's shared copies: shared only if they are its own.
    let shareable = true;
    let h: number;
    if (Array.isArray(o)) {
      h = 0x2f1b3c5d;
      for (let i = 0; i < o.length; i++) {
        const c = this.child(o, i, frozen, depth);
        if (c < 0) shareable = false; else h = mix(h, c);
      }
    } else {
      h = 0x5bd1e995;
      let empty = true;
      // Plain objects only (isTree): for-in visits their own keys, in JSON.stringify's order.
      for (const k in o) {
        empty = false;
        const c = this.child(o, k, frozen, depth);
        if (c < 0) shareable = false; else h = mix(mix(h, hashString(k)), c);
      }
      if (empty) { this.lastHash = 1; return this.empty; }
    }
    if (!shareable) {
      if (frozen) this.leftAlone.add(o);
      this.lastHash = 0;
      return o;
    }
    // 30 bits: a small integer as the Map's key, not a boxed number; never 0 (not shareable).
    return this.share(o, (h & 0x3fffffff) || 2);
  }

  /**
   * Shares the child `k` of `o` (replacing it by its shared copy); answers what `o`'s hash mixes
   * in for it: its content hash, or a hash of its value (tagged by type); -1 when it cannot be shared.
   */
  private child(o: any, k: string | number, frozen: boolean, depth: number): number {
    const v: unknown = o[k];
    if (v === null || typeof v !== 'object') return valueHash(v);
    if (!isTree(v)) return -1;
    const shared = this.visit(v, depth + 1);
    if (this.lastHash === 0) return -1;
    if (shared !== v) {
      if (frozen) return -1;
      o[k] = shared;
    }
    return mix(6, this.lastHash);
  }

  /**
   * The pool's copy of a node whose children are shared already, `h` its content hash; sets
   * lastHash (0 when another node has its hash). A node met for the first time is pooled (frozen:
   * the next equal one shares it); found in the pool again (an equal node, or the same one: the
   * managed-fields create cache hands every create the same frozen set), it is remembered in `hashes`.
   */
  private share(node: object, h: number): object {
    let kept = this.young.get(h);
    let found = true;
    if (kept === undefined) {
      kept = this.old.get(h);
      if (kept === undefined) {
        kept = Object.freeze(this.pooledCopy(node));
        found = false;
      } else if (!this.sameNode(node, kept)) {
        this.lastHash = 0;
        return node;
      }
      if (this.young.size >= this.generationSize) { this.old = this.young; this.young = new Map(); }
      this.young.set(h, kept);
    } else if (!this.sameNode(node, kept)) {
      // Two contents, one hash (about one lookup in 2^30): this one stays unshared.
      this.lastHash = 0;
      return node;
    }
    if (found) this.hashes.set(kept, h);
    this.lastHash = h;
    return kept;
  }

  /** What the pool keeps of a node met for the first time, before it is frozen (TreePoolOptions). */
  private pooledCopy(node: object): object {
    const kept = this.opts.freshNodes && !Array.isArray(node) ? freshObject(node) : node;
    const intern = this.opts.internString;
    if (intern === undefined || Object.isFrozen(kept)) return kept;
    const o = kept as Record<string, unknown>;
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) { const v: unknown = o[i]; if (typeof v === 'string') o[i] = intern(v); }
    } else {
      for (const k in o) { const v = o[k]; if (typeof v === 'string') o[k] = intern(v); }
    }
    return kept;
  }

  /** Whether two nodes whose children are shared have the same keys in the same order and the same children. */
  private sameNode(a: any, b: any): boolean {
    if (a === b) return true;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (Array.isArray(a)) {
      if (a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
      return true;
    }
    const keys = this.scratch;
    let n = 0;
    for (const k in b) keys[n++] = k;
    let i = 0;
    for (const k in a) if (i >= n || keys[i++] !== k || a[k] !== b[k]) return false;
    return i === n;
  }
}

export interface TreePoolOptions {
  /**
   * Pool a fresh copy of each new object node (util/fresh-object.ts), not the node itself:
   * freezing an object made by a spread (`{ ...mount }`, the service-account admission's token
   * mount in every pod) gave each one a hidden class of its own, unlinked from V8's transition
   * tree (a map and a descriptor array, bench/RESULTS.md `mem2`); a copy from an object literal
   * freezes onto one shared frozen class. Only for trees whose key sets repeat: fresh-object.ts
   * compiles a copier per key set, up to a bound, and a field set's keys (a pod IP's
   * `k:{"ip":...}`) do not.
   */
  freshNodes?: boolean;
  /**
   * The shared copy of a string (a StringPool's intern), for the string values of each new node:
   * a cache pools an object's strings after sharing its subtrees (the strings of a subtree dropped
   * for its shared copy are not looked up), so a subtree met for the first time, frozen by the
   * pool, kept the strings JSON.parse gave it: each pod's own container's image and name, its
   * token mount's path, its container status's image ID (10,000 copies each at 10,000 pods).
   */
  internString?: (s: string) => string;
}

/** One step of the hash (32 bits, murmur-style multiply and rotate). */
function mix(h: number, v: number): number {
  h = Math.imul(h ^ v, 0x9e3779b1);
  return ((h << 13) | (h >>> 19)) >>> 0;
}

/** visitLike's lastHash for a node found equal to its like, whose hash it did not look up (hashes are 30-bit and positive). */
const unknownHash = -2;

/** What a node's hash mixes in for a child that is not an object (tagged by type); -1 when it cannot be shared. */
function valueHash(v: unknown): number {
  switch (typeof v) {
    case 'string': return mix(1, hashString(v));
    case 'number': return mix(2, hashString(String(v)));
    case 'boolean': return v ? 3 : 4;
    case 'object': return v === null ? 5 : -1;
    default: return -1;
  }
}

/** FNV-1a of a string's code units. */
function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A JSON object or array as JSON.parse makes them (not a class instance, a byte array, a Date). */
function isTree(v: unknown): v is object {
  if (v === null || typeof v !== 'object') return false;
  return Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype;
}

/**
 * What a cache does to an object as it enters, before anyone else holds it, so that thousands of
 * alike objects (a ReplicaSet's or DaemonSet's pods) keep one copy of what they have in common:
 * the subtrees under the members it is given shared (util/shared-trees.ts: equal subtrees become
 * one frozen copy), every string pooled (util/intern.ts), and the object's own members refitted
 * as fresh fast objects (util/fresh-object.ts). Equal values throughout, so nothing a reader sees
 * changes; shared subtrees are frozen, so a reader that tried to change one would throw instead of
 * changing another object.
 *
 * Used by the API server's watch cache (registry/watch-cache/compact.ts) and by the control loops'
 * informers (cli/controller-manager.ts): each isolate has its own pools.
 *
 * Why pods' spec, status and metadata: a DaemonSet's or ReplicaSet's pods have the same containers,
 * volumes (the service-account token projection), tolerations and security context, labels and
 * owner references, and their status conditions repeat too (the same type, status and often the
 * same second); each decoded pod held its own copy of all of it (bench/RESULTS.md, `memory3`).
 */
import { StringPool } from './intern.js';
import { TreePool } from './shared-trees.js';
import { freshObject } from './fresh-object.js';

export class ObjectSharing {
  /**
   * Subtrees, each new node pooled as a fresh copy with its strings pooled (shared-trees.ts
   * TreePoolOptions: a frozen spread-made object had a hidden class of its own, and internAll
   * does not walk into frozen subtrees).
   */
  private readonly trees: TreePool;

  constructor(readonly strings = new StringPool()) {
    this.trees = new TreePool(32_768, 64, { freshNodes: true, internString: (s) => strings.intern(s) });
  }

  /**
   * Shares the subtrees under `members` of `obj`, pools its strings and refits its own members, in
   * place; returns `obj`. `prev`: the object it replaces, whose parts are tried first (an update
   * usually leaves most of them as they were: one comparison instead of hashing every node).
   * `like`: for a new object (no `prev`), another object of the kind whose subtrees are tried
   * first in the same way (pods created from one template have equal containers, volumes and
   * tolerations). Members named managedFields are left to the caller. `poolStrings` false leaves
   * the object's strings its own (for objects that repeat nothing worth a lookup per string).
   */
  compact<T>(obj: T, prev?: unknown, members: readonly string[] = [], like?: unknown, poolStrings = true): T {
    if (members.length > 0 && isRecord(obj)) this.shareMembers(obj, prev, members, like);
    // After the sharing: the subtrees shared above are frozen, and internAll does not walk into frozen
    // ones, so the strings of a subtree dropped for its shared copy are never looked up in the pool.
    const model = prev ?? like;
    if (poolStrings && members.length > 0 && isRecord(obj) && isRecord(model)) this.poolStringsLike(obj, members, model);
    else if (poolStrings) this.strings.internAll(obj);
    if (isRecord(obj)) refit(obj, prev);
    return obj;
  }

  /**
   * internAll of `o`, but the strings directly under `o` and under its `members` are first compared
   * with the same place in `model` (the previous version, or the last object created), whose strings
   * are the pool's already: equal, its copy is taken without a lookup in the pool. A pod created
   * from one template has the same kind, apiVersion, schedulerName, dnsPolicy, restartPolicy, service
   * account, phase and QoS class as the last one; each lookup in the pool's large map cost a pod
   * create about 0.2 µs on the serving thread (bench/RESULTS.md, `percreate2-2026-12-06`).
   * metadata.uid and metadata.resourceVersion are left out of the pool: no other object or version
   * has the same resourceVersion, and no other object the same uid (an owner's uid in its
   * dependents' ownerReferences is pooled with those); but every version of an object has the same
   * uid, so an update takes the previous version's copy (the garbage collector's graph and the
   * scheduler's cache keep a pod's uid from the versions they saw: one string, not one a version).
   */
  private poolStringsLike(o: Record<string, unknown>, members: readonly string[], model: Record<string, unknown>): void {
    for (const k in o) {
      const v = o[k];
      if (typeof v === 'string') o[k] = this.sameOrPooled(v, model[k]);
      else if (isRecord(v) && members.includes(k)) {
        if (v !== model[k] && !Object.isFrozen(v)) this.poolMemberLike(v, model[k], k === 'metadata');
      } else this.poolIn(v);
    }
  }

  /** internAll of a value as internAll of its parent would walk it: not a frozen (shared) one, not bytes. */
  private poolIn(v: unknown): void {
    if (v !== null && typeof v === 'object' && !ArrayBuffer.isView(v) && !Object.isFrozen(v)) this.strings.internAll(v);
  }

  private poolMemberLike(v: Record<string, unknown>, model: unknown, metadata: boolean): void {
    const m = isRecord(model) ? model : undefined;
    for (const k in v) {
      const s = v[k];
      if (typeof s === 'string') {
        if (!(metadata && (k === 'uid' || k === 'resourceVersion'))) v[k] = this.sameOrPooled(s, m?.[k]);
        else if (k === 'uid' && s === m?.[k]) v[k] = m[k];
      } else this.poolIn(s);
    }
  }

  private sameOrPooled(s: string, model: unknown): string {
    return s === model ? model : this.strings.intern(s);
  }

  private shareMembers(o: Record<string, unknown>, prev: unknown, members: readonly string[], like: unknown): void {
    const p = isRecord(prev) ? prev : undefined;
    const l = p === undefined && isRecord(like) ? like : undefined;
    for (const m of members) {
      const v = o[m];
      if (!isRecord(v)) continue;
      if (p !== undefined) o[m] = this.shareChildren(v, p[m]);
      else this.shareChildrenLike(v, l?.[m]);
    }
  }

  /**
   * For a new object (no previous one): shares each child of `v`, trying first the same child of
   * `like`, found equal by one comparison instead of hashing every node. The member itself stays
   * the object's own.
   */
  private shareChildrenLike(v: Record<string, unknown>, like: unknown): void {
    if (Object.isFrozen(v)) return;
    const l = isRecord(like) ? like : undefined;
    for (const k in v) {
      const c = v[k];
      if (c === null || typeof c !== 'object' || k === 'managedFields') continue;
      v[k] = l ? this.trees.internLike(c, l[k]) : this.trees.intern(c);
    }
  }

  /**
   * Shares each child of `v` (the member itself is the object's own: a pod's spec and status hold
   * its node name and IP, so they rarely repeat whole), trying the previous object's child first.
   * Answers `prev` itself when every child is the same as its (an update that left the member as
   * it was: the status of a spec change, the spec of a status write), else `v`.
   */
  private shareChildren(v: Record<string, unknown>, prev: unknown): Record<string, unknown> {
    // The previous version's member itself (a status write takes the stored spec by reference): shared
    // already, and written to by nobody, not even with its own children.
    if (Object.isFrozen(v) || v === prev) return v;
    const before = isRecord(prev) ? prev : undefined;
    for (const k in v) {
      const c = v[k];
      if (c === null || typeof c !== 'object' || k === 'managedFields') continue;
      v[k] = before ? this.trees.internLike(c, before[k]) : this.trees.intern(c);
    }
    return before && sameChildren(v, before) ? before : v;
  }
}

/**
 * The object's own (unfrozen) object members as fresh fast objects (util/fresh-object.ts), in
 * place: the object itself keeps its identity (a write's answer is the cache's own object,
 * store.ts resultShared). A member that is the previous version's own (an update that left it as
 * it was) was refitted when that version entered and is kept as it is.
 */
function refit(o: Record<string, unknown>, prev: unknown): void {
  const p = isRecord(prev) ? prev : undefined;
  for (const k in o) {
    const v = o[k];
    if (!isRecord(v) || Object.isFrozen(v) || v === p?.[k] || Object.getPrototypeOf(v) !== Object.prototype) continue;
    o[k] = freshObject(v);
  }
}

/** Whether two objects have the same keys in the same order and identical values. */
export function sameChildren(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(b);
  let i = 0;
  for (const k in a) if (keys[i++] !== k || a[k] !== b[k]) return false;
  return i === keys.length;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

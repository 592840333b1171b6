/**
 * Shared copies of the strings that repeat across the objects a cache keeps (namespace, node
 * names, images, label keys and values, condition types and reasons, manager names...).
 * JSON.parse gives every string value its own copy (V8 internalizes property names only), so
 * 150,000 pods hold 150,000 copies of "IfNotPresent"; a cache that passes each object it keeps
 * through internStrings holds one. Measured in bench/memory.ts.
 *
 * The pool forgets: it holds at most 2 x `generationSize` strings, in two generations; when the
 * young one is full it becomes the old one and the old one is dropped, and a string found in
 * the old generation moves to the young one. Strings that repeat stay; a unique one (a uid, a
 * timestamp) leaves within two generations, so the pool does not grow with what it has seen.
 * Strings longer than `maxLength` are left alone (data, certificates: rarely repeated, and
 * the pool's count would not bound its bytes).
 */
export class StringPool {
  private young = new Map<string, string>();
  private old = new Map<string, string>();

  constructor(private readonly generationSize = 65_536, private readonly maxLength = 128) {}

  intern(s: string): string {
    if (s.length > this.maxLength) return s;
    const y = this.young.get(s);
    if (y !== undefined) return y;
    const kept = this.old.get(s) ?? s;
    if (this.young.size >= this.generationSize) { this.old = this.young; this.young = new Map(); }
    this.young.set(s, kept);
    return kept;
  }

  /**
   * Replaces every string value in `root` (objects and arrays, at any depth: walked with a
   * stack, not recursion, as a custom resource may nest deeply; byte arrays are skipped) by the
   * pool's copy, in place.
   * The values stay equal, so the object means exactly what it meant; call it before the
   * object is shared, as a cache does when an object enters it. Returns `root`.
   */
  internAll<T>(root: T): T {
    if (root === null || typeof root !== 'object') return root;
    const stack: object[] = [root as object];
    while (stack.length) {
      const o = stack.pop()!;
      if (Array.isArray(o)) {
        for (let i = 0; i < o.length; i++) {
          const v: unknown = o[i];
          // Always written: equal strings compare equal whichever copy they are.
          if (typeof v === 'string') o[i] = this.intern(v);
          else if (walkInto(v)) stack.push(v);
        }
        continue;
      }
      const rec = o as Record<string, unknown>;
      for (const k in rec) {
        const v = rec[k];
        if (typeof v === 'string') rec[k] = this.intern(v);
        else if (walkInto(v)) stack.push(v);
      }
    }
    return root;
  }
}

/**
 * Objects and arrays internAll walks into: not byte arrays, and not frozen ones (shared copies,
 * util/shared-trees.ts and the managed-fields create cache: their strings were pooled before
 * they were shared, and they cannot be written).
 */
function walkInto(v: unknown): v is object {
  return v !== null && typeof v === 'object' && !ArrayBuffer.isView(v) && !Object.isFrozen(v);
}

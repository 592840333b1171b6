/**
 * The watch cache's pods by spec.nodeName (upstream's cacher indexes pods the same way, by the
 * `spec.nodeName` field selector every kubelet lists and watches with): a kubelet's list of its
 * own pods reads the keys of its node, not every pod of the cluster. The field selector's view of
 * a pod's node is '' when it is unscheduled, as nodeNameOf says; lists still apply the whole
 * selection to every candidate, so the index only has to hold every pod of the node.
 */

/** The field selector's view of a pod's node: '' when unscheduled. */
export const nodeNameOf = (obj: any): string => (typeof obj?.spec?.nodeName === 'string' ? obj.spec.nodeName : '');

export class NodeIndex {
  private readonly byNode = new Map<string, Set<string>>();
  /** Each node's keys in key order, sorted again only after one was added or removed. */
  private readonly sorted = new Map<string, string[]>();

  constructor(objects: Map<string, unknown>) {
    for (const [key, obj] of objects) this.add(nodeNameOf(obj), key);
  }

  /** The object under `key` went from `prev` to `next` (undefined: absent, before or after). */
  apply(key: string, prev: unknown, next: unknown): void {
    const before = prev === undefined ? undefined : nodeNameOf(prev);
    const after = next === undefined ? undefined : nodeNameOf(next);
    if (before === after) return;
    if (before !== undefined) this.remove(before, key);
    if (after !== undefined) this.add(after, key);
  }

  /** The keys of the node's pods under `prefix`, in key order. */
  keysOn(node: string, prefix: string): string[] {
    const set = this.byNode.get(node);
    if (!set) return [];
    let keys = this.sorted.get(node);
    if (!keys) {
      // Keys are ASCII (names are DNS labels), so code-unit order is storage's byte order.
      keys = [...set].sort();
      this.sorted.set(node, keys);
    }
    return prefix ? keys.filter((k) => k.startsWith(prefix)) : keys;
  }

  private add(node: string, key: string): void {
    let set = this.byNode.get(node);
    if (!set) { set = new Set(); this.byNode.set(node, set); }
    set.add(key);
    this.sorted.delete(node);
  }

  private remove(node: string, key: string): void {
    const set = this.byNode.get(node);
    if (!set?.delete(key)) return;
    if (set.size === 0) this.byNode.delete(node);
    this.sorted.delete(node);
  }
}

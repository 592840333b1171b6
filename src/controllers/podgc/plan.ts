import type { Node, Pod } from 'kubernetes-types/core/v1.js';
/**
 * What the pod garbage collector deletes (upstream
 * `pkg/controller/podgc/gc_controller.go`). Pure functions over cached pods
 * and nodes; the controller force-deletes what they return, in this order:
 *  1. Terminated pods (phase neither Pending, Running nor Unknown) beyond
 *     terminated-pod-gc-threshold (when > 0): evicted pods first, then the
 *     oldest by creationTimestamp, then by name.
 *  2. Terminating pods (deletionTimestamp set) on a node that is not Ready
 *     and has the node.kubernetes.io/out-of-service taint.
 *  3. Orphaned pods: bound to a node that is gone — absent from the cache
 *     for the quarantine time and then confirmed absent by a live GET.
 *  4. Terminating pods that were never bound to a node.
 */

export const TaintNodeOutOfService = 'node.kubernetes.io/out-of-service';

/** isPodTerminated: phase other than Pending, Running and Unknown. */
export function isPodTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase ?? '';
  return phase !== 'Pending' && phase !== 'Running' && phase !== 'Unknown';
}

/** The kubelet's eviction.PodIsEvicted: Failed with reason Evicted. */
export const podIsEvicted = (pod: Pod) => pod.status?.phase === 'Failed' && pod.status?.reason === 'Evicted';

/** byEvictionAndCreationTimestamp: evicted first, then older, then by name. */
export function byEvictionAndCreationTimestamp(a: Pod, b: Pod): number {
  const ae = podIsEvicted(a);
  const be = podIsEvicted(b);
  if (ae !== be) return ae ? -1 : 1;
  const at = Date.parse(a.metadata!.creationTimestamp ?? '') || 0;
  const bt = Date.parse(b.metadata!.creationTimestamp ?? '') || 0;
  if (at === bt) return a.metadata!.name! < b.metadata!.name! ? -1 : a.metadata!.name! > b.metadata!.name! ? 1 : 0;
  return at - bt;
}

/** Rule 1. */
export function terminatedPodsToDelete(pods: readonly Pod[], threshold: number): Pod[] {
  if (threshold <= 0) return [];
  const terminated = pods.filter(isPodTerminated);
  const count = terminated.length - threshold;
  if (count <= 0) return [];
  return terminated.sort(byEvictionAndCreationTimestamp).slice(0, count);
}

/** nodeutil.IsNodeReady. */
export const isNodeReady = (node: Node) => (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** Rule 2; nodes missing from the cache are skipped. */
export function terminatingPodsOnOutOfServiceNodes(pods: readonly Pod[], getNode: (name: string) => Node | undefined): Pod[] {
  const out = pods.filter((p) => {
    if (!p.metadata!.deletionTimestamp) return false;
    const node = getNode(p.spec?.nodeName ?? '');
    return !!node && !isNodeReady(node) && (node.spec?.taints ?? []).some((t) => t.key === TaintNodeOutOfService);
  });
  return out.sort(byEvictionAndCreationTimestamp);
}

/** Rule 3, first half: node names pods are bound to that the cache does not know. */
export function unknownNodeNames(pods: readonly Pod[], existing: ReadonlySet<string>): string[] {
  const names = new Set<string>();
  for (const p of pods) {
    const n = p.spec?.nodeName;
    if (n && !existing.has(n)) names.add(n);
  }
  return [...names];
}

/** Rule 4. */
export const unscheduledTerminatingPods = (pods: readonly Pod[]) => pods.filter((p) => p.metadata!.deletionTimestamp && !p.spec?.nodeName);

/**
 * The quarantine of unknown node names (upstream's delaying queue): a name is
 * due `quarantineMs` after it was first added; adding it again does not delay it.
 */
export class Quarantine {
  private readonly due = new Map<string, number>();

  constructor(private readonly quarantineMs: number) {}

  add(name: string, nowMs: number): void {
    const at = nowMs + this.quarantineMs;
    const cur = this.due.get(name);
    if (cur === undefined || at < cur) this.due.set(name, at);
  }

  /** Removes and returns the names that are due. */
  takeDue(nowMs: number): string[] {
    const out: string[] = [];
    for (const [name, at] of this.due) if (at <= nowMs) { out.push(name); this.due.delete(name); }
    return out;
  }

  get size(): number { return this.due.size; }
}

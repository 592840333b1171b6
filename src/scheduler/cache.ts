/**
 * The scheduler cache (upstream `internal/cache`): NodeInfos kept up to date
 * from the node and pod informers, plus assumed pods. A pod is assumed on
 * its node the moment the scheduler decides, before the binding is written,
 * so the next pods see its requests and ports at once; the informer's view
 * of the bound pod later confirms it, a failed binding forgets it.
 *
 * A pod may name a node the cache has not seen (yet): its NodeInfo exists
 * without a node and is left out of the scheduling list until the node comes.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { NodeInfo, NodeTable, podResources } from './nodeinfo.js';
import { cachedPod, countedResources, type CachedPod } from './cached-pod.js';
import type { NodeSnapshot } from './runtime.js';
import { metaKey } from '../client/informer.js';

/** The node a pod in the cache is counted on. */
const nodeOf = (pod: CachedPod): string => pod.spec!.nodeName!;

export class SchedulerCache implements NodeSnapshot {
  /** The Hot rows of every NodeInfo of the cache. */
  readonly table = new NodeTable();
  private readonly nodes = new Map<string, NodeInfo>();
  /** Nodes with a Node object, in the order they arrived: the order filters walk them; and their rows. */
  private nodeList: NodeInfo[] = [];
  private slotList: number[] = [];
  /**
   * Each pod the cache counts, by key, in its cached form (cached-pod.ts: the members the plugins
   * read and the resources it counts, not the informer's pod, so the informer may keep that pod
   * compressed): its node is its spec.nodeName (for an assumed pod the chosen node). No wrapper
   * object per pod: at 150,000 pods a `{ pod, nodeName, assumed }` record each was ~60 bytes a pod
   * (bench/RESULTS.md `meminf2-2026-12-06`).
   */
  private readonly podStates = new Map<string, CachedPod>();
  /** The keys of pods assumed and not yet confirmed by the informer (few: the bindings in flight). */
  private readonly assumed = new Set<string>();
  /** Nodes running pods with pod affinity, and with required anti-affinity (upstream's HavePodsWith*AffinityList). */
  private readonly withAffinity = new Set<NodeInfo>();
  private readonly withRequiredAntiAffinity = new Set<NodeInfo>();

  /** Nodes (with a Node object) running pods that have pod affinity or anti-affinity. */
  havePodsWithAffinity(): readonly NodeInfo[] { return [...this.withAffinity].filter((n) => n.node); }
  /** Nodes (with a Node object) running pods that have required anti-affinity. */
  havePodsWithRequiredAntiAffinity(): readonly NodeInfo[] { return [...this.withRequiredAntiAffinity].filter((n) => n.node); }

  get list(): readonly NodeInfo[] { return this.nodeList; }
  get slots(): readonly number[] { return this.slotList; }
  get(name: string): NodeInfo | undefined { return this.nodes.get(name); }
  get nodeCount(): number { return this.nodeList.length; }

  addNode(node: Node): void {
    const name = node.metadata!.name!;
    const info = this.nodeInfo(name);
    if (!info.node) { this.nodeList.push(info); this.slotList.push(info.slot); }
    info.setNode(node);
  }

  updateNode(_old: Node, node: Node): void { this.addNode(node); }

  removeNode(node: Node): void {
    const name = node.metadata!.name!;
    const info = this.nodes.get(name);
    if (!info?.node) return;
    info.node = undefined;
    this.nodeList = this.nodeList.filter((n) => n !== info);
    this.slotList = this.nodeList.map((n) => n.slot);
    if (info.pods.size === 0) this.dropNodeInfo(info);
  }

  isAssumed(key: string): boolean { return this.assumed.has(key); }

  /** Counts the pod on the node now; `pod` is the pending pod, placed as if bound. */
  assumePod(pod: Pod, nodeName: string): void {
    const key = metaKey(pod);
    if (this.podStates.has(key)) throw new Error(`pod ${key} is already in the scheduler cache`);
    const assumed = cachedPod(pod, nodeName, podResources(pod));
    this.addToNode(key, assumed, nodeName);
    this.podStates.set(key, assumed);
    this.assumed.add(key);
  }

  /** A failed binding: the assumed pod leaves its node. */
  forgetPod(key: string): void {
    if (!this.assumed.delete(key)) return;
    this.removeFromNode(key, nodeOf(this.podStates.get(key)!));
    this.podStates.delete(key);
  }

  /** A bound pod seen by the informer (confirms an assumed one). */
  addPod(pod: Pod): void {
    const key = metaKey(pod);
    const st = this.podStates.get(key);
    const wasAssumed = this.assumed.delete(key);
    const nodeName = pod.spec!.nodeName!;
    // The bound version of an assumed pod asks for the same resources (requests are immutable here).
    const confirms = wasAssumed && st?.metadata?.uid === pod.metadata?.uid;
    const cached = cachedPod(pod, nodeName, confirms ? st![countedResources] : podResources(pod));
    if (st) {
      const stNode = nodeOf(st);
      // Upstream removes the old pod and adds the new one; on the same node with the same resources
      // (a binding confirmed) that leaves the node's sums as they were, so the pod is swapped in place.
      const info = stNode === nodeName ? this.nodes.get(stNode) : undefined;
      if (info?.replacePod(key, cached)) {
        this.trackAffinity(info);
        this.podStates.set(key, cached);
        return;
      }
      this.removeFromNode(key, stNode);
    }
    this.addToNode(key, cached, nodeName);
    this.podStates.set(key, cached);
  }

  updatePod(_old: Pod, pod: Pod): void { this.addPod(pod); }

  removePod(pod: Pod): void {
    const key = metaKey(pod);
    const st = this.podStates.get(key);
    if (!st) return;
    this.removeFromNode(key, nodeOf(st));
    this.podStates.delete(key);
    this.assumed.delete(key);
  }

  get podCount(): number { return this.podStates.size; }

  private nodeInfo(name: string): NodeInfo {
    let info = this.nodes.get(name);
    if (!info) this.nodes.set(name, (info = new NodeInfo(name, this.table)));
    return info;
  }

  private dropNodeInfo(info: NodeInfo): void {
    this.nodes.delete(info.name);
    this.table.release(info.slot);
  }

  private addToNode(key: string, pod: CachedPod, nodeName: string): void {
    const info = this.nodeInfo(nodeName);
    info.addPod(key, pod);
    this.trackAffinity(info);
  }

  private trackAffinity(info: NodeInfo): void {
    if (info.podsWithAffinity.size > 0) this.withAffinity.add(info); else this.withAffinity.delete(info);
    if (info.podsWithRequiredAntiAffinity.size > 0) this.withRequiredAntiAffinity.add(info); else this.withRequiredAntiAffinity.delete(info);
  }

  private removeFromNode(key: string, nodeName: string): void {
    const info = this.nodes.get(nodeName);
    if (!info) return;
    info.removePod(key);
    this.trackAffinity(info);
    if (!info.node && info.pods.size === 0) this.dropNodeInfo(info);
  }
}

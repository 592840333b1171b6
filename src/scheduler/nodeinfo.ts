/**
 * NodeInfo: what the scheduler knows about one node, precomputed so that
 * filtering thousands of nodes is arithmetic (upstream framework.NodeInfo):
 * allocatable, the requests of the pods on it (assumed ones included), their
 * non-zero requests for scoring, the host ports in use, its taints.
 */
import type { Container, Node, Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import type { Taint } from '../api/tolerations.js';
import { hasPodAffinity, hasRequiredAntiAffinity } from './plugins/affinity-terms.js';
import { emptyResources, podRequestAmounts, resourceListAmounts, type ResourceAmounts } from '../api/resource-helpers.js';
import { countedResources, type CachedPod } from './cached-pod.js';

export interface HostPort { hostIP: string; protocol: string; port: number }

/** Per pod object: requests, non-zero requests, host ports. Pods from informers are immutable, so memoized. */
export interface PodResources {
  requests: ResourceAmounts;
  nonZero: { milliCPU: number; memory: number };
  hostPorts: HostPort[];
}

const memo = new WeakMap<object, PodResources>();

/** The memo key of a lone container without resources (BestEffort pods of any template). */
const noResources = {};

/**
 * What a pod's resources are memoized under: for a pod of one container without ports, no init
 * containers and no overhead (podRequestAmounts then reads only that container's resources, and
 * podHostPorts finds none), the container's `resources` object; else the pod. A ReplicaSet's pods
 * share one frozen `resources` in the control loops' informers (util/shared-objects.ts; not their
 * containers array, which names each pod's own kube-api-access volume), so they share one
 * PodResources: an entry per pod object was ~400 bytes a pod (bench/RESULTS.md `meminf2-2026-12-06`).
 */
function memoKey(pod: Pod): object {
  const spec = pod.spec;
  if (!spec || spec.initContainers || spec.overhead || spec.containers?.length !== 1) return pod;
  const c = spec.containers[0];
  if (!c || c.ports?.length) return pod;
  return c.resources ?? noResources;
}

export function podResources(pod: Pod): PodResources {
  const counted = (pod as Partial<CachedPod>)[countedResources];
  if (counted) return counted;
  const key = memoKey(pod);
  let r = memo.get(key);
  if (!r) {
    const { requests, nonZero } = podRequestAmounts(pod.spec);
    r = { requests, nonZero, hostPorts: podHostPorts(pod.spec) };
    memo.set(key, r);
  }
  return r;
}

/** schedutil.GetHostPorts: container ports with a hostPort, from containers and sidecar init containers. */
export function podHostPorts(spec: PodSpec | undefined): HostPort[] {
  const out: HostPort[] = [];
  const collect = (c: Container) => {
    for (const p of c?.ports ?? []) {
      if (!((p?.hostPort ?? 0) > 0)) continue;
      out.push({ hostIP: p.hostIP ?? '', protocol: p.protocol ?? '', port: p.hostPort! });
    }
  };
  for (const c of spec?.containers ?? []) collect(c);
  for (const c of spec?.initContainers ?? []) if (c?.restartPolicy === 'Always') collect(c);
  return out;
}

export const defaultBindAllHostIP = '0.0.0.0';

/**
 * HostPortInfo: host ports in use per host IP. An empty IP means 0.0.0.0, an
 * empty protocol TCP. A port conflicts when the same protocol/port is used on
 * the same IP or on 0.0.0.0, and 0.0.0.0 conflicts with every IP.
 */
export class HostPortInfo {
  private readonly byIP = new Map<string, Map<string, number>>();

  private static sanitize(ip: string, protocol: string, port: number): [string, string] {
    return [ip || defaultBindAllHostIP, `${protocol || 'TCP'}/${port}`];
  }

  add(ip: string, protocol: string, port: number): void {
    if (port <= 0) return;
    const [i, pp] = HostPortInfo.sanitize(ip, protocol, port);
    let m = this.byIP.get(i);
    if (!m) this.byIP.set(i, (m = new Map()));
    m.set(pp, (m.get(pp) ?? 0) + 1);
  }

  remove(ip: string, protocol: string, port: number): void {
    if (port <= 0) return;
    const [i, pp] = HostPortInfo.sanitize(ip, protocol, port);
    const m = this.byIP.get(i);
    const n = m?.get(pp);
    if (!m || n === undefined) return;
    if (n > 1) m.set(pp, n - 1); else m.delete(pp);
    if (!m.size) this.byIP.delete(i);
  }

  checkConflict(ip: string, protocol: string, port: number): boolean {
    if (port <= 0) return false;
    const [i, pp] = HostPortInfo.sanitize(ip, protocol, port);
    if (i === defaultBindAllHostIP) {
      for (const m of this.byIP.values()) if (m.has(pp)) return true;
      return false;
    }
    return !!this.byIP.get(defaultBindAllHostIP)?.has(pp) || !!this.byIP.get(i)?.has(pp);
  }

  get size(): number {
    let n = 0;
    for (const m of this.byIP.values()) n += m.size;
    return n;
  }

  clone(): HostPortInfo {
    const c = new HostPortInfo();
    for (const [ip, m] of this.byIP) c.byIP.set(ip, new Map(m));
    return c;
  }
}

/**
 * The numbers every filter and score reads for every node, by field, in a
 * NodeTable row. They live in one Float64Array shared by the cache's nodes,
 * a row per node: V8 boxes numbers beyond 2^31 (memory in bytes) held in
 * object fields, and walking hundreds of nodes per pod through objects is
 * cache misses all the way; rows in one array are read like a stream.
 */
export const enum Hot {
  AllocMilliCPU, AllocMemory, AllocPods, ReqMilliCPU, ReqMemory, NonZeroMilliCPU, NonZeroMemory, PodCount, TaintCount, Unschedulable,
}
export const hotFields = 10;

/** Rows of Hot fields; a slot is a row. Growing replaces `data`, so read it through the table. */
export class NodeTable {
  data: Float64Array;
  private next = 0;
  private readonly free: number[] = [];

  constructor(capacity = 64) { this.data = new Float64Array(capacity * hotFields); }

  alloc(): number {
    const slot = this.free.pop() ?? this.next++;
    if ((slot + 1) * hotFields > this.data.length) {
      const grown = new Float64Array(Math.max(this.data.length * 2, (slot + 1) * hotFields));
      grown.set(this.data);
      this.data = grown;
    }
    this.data.fill(0, slot * hotFields, (slot + 1) * hotFields);
    return slot;
  }

  release(slot: number): void { this.free.push(slot); }
}

export class NodeInfo {
  /** Undefined while pods name a node the cache has not seen yet. */
  node: Node | undefined;
  allocatable: ResourceAmounts = emptyResources();
  readonly requested: ResourceAmounts = emptyResources();
  readonly nonZeroRequested = { milliCPU: 0, memory: 0 };
  readonly pods = new Map<string, any>();
  /** Pods with pod affinity or anti-affinity, and those with required anti-affinity: what InterPodAffinity walks. */
  readonly podsWithAffinity = new Map<string, any>();
  readonly podsWithRequiredAntiAffinity = new Map<string, any>();
  usedPorts = new HostPortInfo();
  taints: readonly Taint[] = [];
  unschedulable = false;
  /** Bumped on every change. */
  generation = 0;
  /** This node's row in `table` (the cache's shared table, or a private one). */
  readonly slot: number;

  constructor(readonly name: string, readonly table: NodeTable = new NodeTable(1)) {
    this.slot = table.alloc();
  }

  /** A Hot field of this node. */
  hot(field: Hot): number { return this.table.data[this.slot * hotFields + field]; }

  private setHot(field: Hot, value: number): void { this.table.data[this.slot * hotFields + field] = value; }

  setNode(node: Node): void {
    this.node = node;
    this.allocatable = resourceListAmounts(node?.status?.allocatable);
    this.taints = node?.spec?.taints ?? [];
    this.unschedulable = !!node?.spec?.unschedulable;
    this.setHot(Hot.AllocMilliCPU, this.allocatable.milliCPU);
    this.setHot(Hot.AllocMemory, this.allocatable.memory);
    this.setHot(Hot.AllocPods, this.allocatable.pods);
    this.setHot(Hot.TaintCount, this.taints.length);
    this.setHot(Hot.Unschedulable, this.unschedulable ? 1 : 0);
    this.generation++;
  }

  get labels(): Record<string, string> { return this.node?.metadata?.labels ?? {}; }

  addPod(key: string, pod: Pod): void {
    if (this.pods.has(key)) this.removePod(key);
    this.pods.set(key, pod);
    if (hasPodAffinity(pod)) {
      this.podsWithAffinity.set(key, pod);
      if (hasRequiredAntiAffinity(pod)) this.podsWithRequiredAntiAffinity.set(key, pod);
    }
    this.update(podResources(pod), 1);
    this.generation++;
  }

  /**
   * removePod then addPod of `pod` under `key`, when both count the same (one PodResources, as
   * the cache's confirmed bindings share it): the sums stay, only the pod object and its affinity entries change.
   * False (nothing done) when they may count differently.
   */
  replacePod(key: string, pod: Pod): boolean {
    const old = this.pods.get(key);
    if (!old || podResources(old) !== podResources(pod)) return false;
    this.pods.set(key, pod);
    this.podsWithAffinity.delete(key);
    this.podsWithRequiredAntiAffinity.delete(key);
    if (hasPodAffinity(pod)) {
      this.podsWithAffinity.set(key, pod);
      if (hasRequiredAntiAffinity(pod)) this.podsWithRequiredAntiAffinity.set(key, pod);
    }
    this.generation++;
    return true;
  }

  removePod(key: string): boolean {
    const pod = this.pods.get(key);
    if (!pod) return false;
    this.pods.delete(key);
    this.podsWithAffinity.delete(key);
    this.podsWithRequiredAntiAffinity.delete(key);
    this.update(podResources(pod), -1);
    this.generation++;
    return true;
  }

  private update(r: PodResources, sign: 1 | -1): void {
    const q = this.requested;
    q.milliCPU += sign * r.requests.milliCPU;
    q.memory += sign * r.requests.memory;
    q.ephemeralStorage += sign * r.requests.ephemeralStorage;
    for (const [k, v] of r.requests.scalar) {
      const next = (q.scalar.get(k) ?? 0) + sign * v;
      if (next === 0) q.scalar.delete(k); else q.scalar.set(k, next);
    }
    this.nonZeroRequested.milliCPU += sign * r.nonZero.milliCPU;
    this.nonZeroRequested.memory += sign * r.nonZero.memory;
    this.setHot(Hot.ReqMilliCPU, q.milliCPU);
    this.setHot(Hot.ReqMemory, q.memory);
    this.setHot(Hot.NonZeroMilliCPU, this.nonZeroRequested.milliCPU);
    this.setHot(Hot.NonZeroMemory, this.nonZeroRequested.memory);
    this.setHot(Hot.PodCount, this.pods.size);
    for (const p of r.hostPorts) {
      if (sign > 0) this.usedPorts.add(p.hostIP, p.protocol, p.port);
      else this.usedPorts.remove(p.hostIP, p.protocol, p.port);
    }
  }

  /** A deep enough copy (with its own table row) to remove pods from (preemption's dry run). */
  clone(): NodeInfo {
    const c = new NodeInfo(this.name);
    c.node = this.node;
    c.allocatable = this.allocatable;
    c.taints = this.taints;
    c.unschedulable = this.unschedulable;
    Object.assign(c.requested, { ...this.requested, scalar: new Map(this.requested.scalar) });
    Object.assign(c.nonZeroRequested, this.nonZeroRequested);
    for (const [k, p] of this.pods) c.pods.set(k, p);
    for (const [k, p] of this.podsWithAffinity) c.podsWithAffinity.set(k, p);
    for (const [k, p] of this.podsWithRequiredAntiAffinity) c.podsWithRequiredAntiAffinity.set(k, p);
    c.usedPorts = this.usedPorts.clone();
    c.generation = this.generation;
    for (let f = 0; f < hotFields; f++) c.setHot(f, this.hot(f));
    return c;
  }
}

/**
 * The scheduling framework's extension points (upstream
 * `pkg/scheduler/framework/interface.go`): one small interface per point,
 * results as values with a fixed set of codes, and typed state handed from
 * one phase to the next within a scheduling cycle.
 *
 * A cycle for one pod runs, in order:
 *  1. PreFilter (once): compute per-pod state, may narrow the nodes to
 *     consider (PreFilterResult) or reject the pod outright;
 *  2. Filter (per node): Success, or a rejection with reasons; the first
 *     rejecting plugin decides the node's status;
 *  3. PostFilter (only when no node passed): preemption's diagnosis;
 *  4. PreScore (once), Score (per feasible node), NormalizeScore (once per
 *     plugin), then the weighted sum picks the node.
 * Plugins are synchronous and must not mutate the pod or the NodeInfo.
 */
import type { Unstructured } from '../api/unstructured.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { NodeInfo } from './nodeinfo.js';

// ---- Status -----------------------------------------------------------------

/** Rejections: Unschedulable may be resolved by preemption, UnschedulableAndUnresolvable may not. */
export type RejectedCode = 'Unschedulable' | 'UnschedulableAndUnresolvable';

export type Status =
  | { readonly code: 'Success' }
  /** PreFilter/PreScore: this plugin has nothing to do for the pod; its Filter/Score is skipped. */
  | { readonly code: 'Skip' }
  | Rejected
  | { readonly code: 'Error'; readonly message: string };

export interface Rejected { readonly code: RejectedCode; readonly reasons: readonly string[] }

export const success: Status = Object.freeze({ code: 'Success' });
export const skip: Status = Object.freeze({ code: 'Skip' });
export const unschedulable = (...reasons: string[]): Rejected => ({ code: 'Unschedulable', reasons });
export const unresolvable = (...reasons: string[]): Rejected => ({ code: 'UnschedulableAndUnresolvable', reasons });
export const errorStatus = (message: string): Status => ({ code: 'Error', message });

export const isRejected = (s: Status): s is Rejected => s.code === 'Unschedulable' || s.code === 'UnschedulableAndUnresolvable';

/** Status.Message(): the reasons joined with ", ". */
export function statusMessage(s: Status): string {
  if (isRejected(s)) return s.reasons.join(', ');
  return s.code === 'Error' ? s.message : '';
}

// ---- Cycle state ------------------------------------------------------------

/** A typed key into CycleState; the type parameter ties reads to writes. */
export interface StateKey<T> { readonly name: string; readonly __type?: T }
export const stateKey = <T>(name: string): StateKey<T> => ({ name });

/** Data plugins share within one scheduling cycle of one pod. */
export class CycleState {
  private readonly data = new Map<StateKey<unknown>, unknown>();
  /** Filter plugins whose PreFilter returned Skip. */
  readonly skipFilter = new Set<string>();
  /** Score plugins whose PreScore returned Skip. */
  readonly skipScore = new Set<string>();

  read<T>(key: StateKey<T>): T | undefined { return this.data.get(key) as T | undefined; }
  write<T>(key: StateKey<T>, value: T): void { this.data.set(key, value); }
}

// ---- Extension points -------------------------------------------------------

export interface Plugin { readonly name: string }

/** Node names the pod may go to; undefined means all nodes. */
export interface PreFilterResult { readonly nodeNames?: ReadonlySet<string> }

/** Every node of the cycle's snapshot (InterPodAffinity and PodTopologySpread count pods across all of them). */
export interface AllNodes {
  readonly list: readonly NodeInfo[];
  /** The nodes running pods with pod affinity / required anti-affinity, when the snapshot tracks them (else the plugin walks `list`). */
  havePodsWithAffinity?(): readonly NodeInfo[];
  havePodsWithRequiredAntiAffinity?(): readonly NodeInfo[];
}

export interface PreFilterPlugin extends Plugin {
  preFilter(state: CycleState, pod: Pod, nodes: AllNodes): { status: Status; result?: PreFilterResult };
}

/**
 * Nodes handed to the batch forms of Filter and Score: for i < count,
 * nodes[i] has its Hot row (see nodeinfo.ts) at data[slots[i] * hotFields].
 * Batch code reads the rows and touches nodes[i] only on slow paths.
 */
export interface NodeBatch {
  readonly nodes: readonly NodeInfo[];
  readonly slots: Int32Array;
  readonly data: Float64Array;
  readonly count: number;
}

export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: Pod, node: NodeInfo): Status;
  /**
   * Optional batch form for hot plugins: out[i] = filter(state, pod, nodes[i]) for i < count,
   * exactly, and the number of those that are not Success. When every node passes it returns 0
   * and may leave `out` unwritten (the common case costs no store per node).
   */
  filterNodes?(state: CycleState, pod: Pod, batch: NodeBatch, out: Status[]): number;
}

export interface PreScorePlugin extends Plugin {
  /** `nodes` are the feasible nodes, `all` every node of the snapshot. */
  preScore(state: CycleState, pod: Pod, nodes: readonly NodeInfo[], all: AllNodes): Status;
}

export interface NodeScore { readonly name: string; score: number }

export interface ScorePlugin extends Plugin {
  /** 0..MaxNodeScore before normalization. */
  score(state: CycleState, pod: Pod, node: NodeInfo): number;
  /** Optional batch form for hot plugins: out[i] = score(state, pod, nodes[i]) for i < count, exactly. */
  scoreNodes?(state: CycleState, pod: Pod, batch: NodeBatch, out: Float64Array): void;
  normalizeScore?(state: CycleState, pod: Pod, scores: NodeScore[]): void;
  /** Optional batch form of normalizeScore over scores[i] for i < count (the feasible nodes' order), exactly. */
  normalizeScores?(state: CycleState, pod: Pod, scores: Float64Array, count: number): void;
}

/** Why each node was rejected, as the framework's Diagnosis records it. */
export interface NodeStatus { readonly status: Rejected; readonly plugin: string }

export interface Diagnosis {
  /** Nodes evaluated and rejected. */
  readonly nodeToStatus: Map<string, NodeStatus>;
  /** The status of nodes PreFilter excluded (or of every node when PreFilter rejected the pod). */
  absentNodesStatus?: NodeStatus;
  readonly unschedulablePlugins: Set<string>;
  preFilterMsg: string;
  postFilterMsg: string;
}

/** A node to nominate the pod to, and the pods to evict from it (preemption). */
export interface Nomination { readonly nodeName: string; readonly victims: readonly Pod[] }

export interface PostFilterResult { readonly status: Status; readonly nomination?: Nomination }

export interface PostFilterPlugin extends Plugin {
  /** Runs when no node fits; its message joins the FitError (preemption's "preemption: ..."). */
  postFilter(pod: Pod, diagnosis: Diagnosis, allNodes: readonly NodeInfo[], filters: (pod: Pod, node: NodeInfo) => Status): PostFilterResult;
}

// ---- Queueing hints ---------------------------------------------------------

/** Cluster events that can make an unschedulable pod schedulable (framework.ClusterEvent). */
export type ClusterEvent =
  | { readonly type: 'NodeAdd'; readonly node: Node }
  | { readonly type: 'NodeUpdate'; readonly oldNode: Node; readonly newNode: Node }
  | { readonly type: 'AssignedPodDelete'; readonly pod: Pod }
  /** A pod was bound, or a bound pod's labels changed (pod affinity, topology spread). */
  | { readonly type: 'AssignedPodAdd'; readonly pod: Pod }
  /** The unschedulable pod itself changed (labels, tolerations, requests...). */
  | { readonly type: 'UnscheduledPodUpdate'; readonly oldPod: Pod; readonly newPod: Pod }
  /** A PersistentVolumeClaim, PersistentVolume or StorageClass was added or changed (VolumeBinding). */
  | { readonly type: 'StorageChange'; readonly resource: string; readonly obj: Unstructured };

export type ClusterEventType = ClusterEvent['type'];

/** EnqueueExtensions: which events may help a pod this plugin rejected, and a hint deciding it. */
export interface EnqueueExtensions {
  readonly events: readonly ClusterEventType[];
  /** 'Queue' when the event may make the pod schedulable for this plugin. */
  queueingHint(event: ClusterEvent, pod: Pod): 'Queue' | 'QueueSkip';
}

export const maxNodeScore = 100;

/**
 * helper.DefaultNormalizeScore: scales scores to 0..maxScore by the highest
 * one (integer division), reversed (maxScore - score) when asked; all zero
 * stays zero, or becomes maxScore when reversed.
 */
export function defaultNormalizeScore(maxScore: number, reverse: boolean, scores: NodeScore[]): void {
  let max = 0;
  for (const s of scores) if (s.score > max) max = s.score;
  if (max === 0) {
    if (reverse) for (const s of scores) s.score = maxScore;
    return;
  }
  for (const s of scores) {
    let v = Math.trunc((maxScore * s.score) / max);
    if (reverse) v = maxScore - v;
    s.score = v;
  }
}

/** defaultNormalizeScore over scores[0..count), in place: the batch form (normalizeScores). */
export function defaultNormalizeScores(maxScore: number, reverse: boolean, scores: Float64Array, count: number): void {
  let max = 0;
  for (let i = 0; i < count; i++) if (scores[i] > max) max = scores[i];
  if (max === 0) {
    if (reverse) scores.fill(maxScore, 0, count);
    return;
  }
  for (let i = 0; i < count; i++) {
    const v = Math.trunc((maxScore * scores[i]) / max);
    scores[i] = reverse ? maxScore - v : v;
  }
}

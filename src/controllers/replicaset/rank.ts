/**
 * Which pods a ReplicaSet deletes first when it scales down (upstream
 * controller_utils.go ActivePodsWithRanks.Less, replica_set.go
 * getPodsToDelete). A pod sorts earlier, and is deleted sooner, when it is:
 *  1. unassigned (no nodeName) rather than assigned;
 *  2. in an earlier phase: Pending < Unknown < Running (others count as Pending);
 *  3. not ready rather than ready;
 *  4. cheaper by the controller.kubernetes.io/pod-deletion-cost annotation;
 *  5. doubled up: more related active pods on its node (its rank);
 *  6. both ready: ready for less time (LogarithmicScaleDown: compared in
 *     powers-of-two buckets of age, then by uid);
 *  7. higher maximum container restart count;
 *  8. newer (empty creation time first; log buckets, then uid).
 * Related pods are those of every ReplicaSet with the same controlling
 * owner (a Deployment's ReplicaSets), so scale-down spreads over nodes.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { podCondition, podIsActive, podIsReady } from '../../api/pods.js';

export const podDeletionCostAnnotation = 'controller.kubernetes.io/pod-deletion-cost';

const phaseOrdinal: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

export interface RankedPods { pods: Pod[]; rank: number[]; now: Date }

/** getPodsRankedByRelatedPodsOnSameNode: rank = active related pods on the pod's node. */
export function rankByRelatedPodsOnSameNode(pods: readonly Pod[], related: readonly Pod[], now: Date): RankedPods {
  const onNode = new Map<string, number>();
  for (const p of related) {
    if (podIsActive(p)) onNode.set(p.spec?.nodeName ?? '', (onNode.get(p.spec?.nodeName ?? '') ?? 0) + 1);
  }
  return { pods: [...pods], rank: pods.map((p) => onNode.get(p.spec?.nodeName ?? '') ?? 0), now };
}

/** getPodsToDelete: the first `diff` pods in deletion order. */
export function podsToDelete(pods: readonly Pod[], related: readonly Pod[], diff: number, now: Date): Pod[] {
  if (diff >= pods.length) return pods.slice(0, diff);
  const ranked = rankByRelatedPodsOnSameNode(pods, related, now);
  const order = ranked.pods.map((_, i) => i).sort((i, j) => compareRanked(ranked, i, j));
  return order.slice(0, diff).map((i) => ranked.pods[i]);
}

/** Negative when pod i should be deleted before pod j. */
export function compareRanked(s: RankedPods, i: number, j: number): number {
  const a = s.pods[i];
  const b = s.pods[j];
  const na = a.spec?.nodeName ?? '';
  const nb = b.spec?.nodeName ?? '';
  if (na !== nb && (!na || !nb)) return !na ? -1 : 1; // 1
  const pa = phaseOrdinal[a.status?.phase ?? ''] ?? 0;
  const pb = phaseOrdinal[b.status?.phase ?? ''] ?? 0;
  if (pa !== pb) return pa - pb; // 2
  const ra = podIsReady(a);
  const rb = podIsReady(b);
  if (ra !== rb) return ra ? 1 : -1; // 3
  const ca = deletionCost(a);
  const cb = deletionCost(b);
  if (ca !== cb) return ca - cb; // 4
  if (s.rank[i] !== s.rank[j]) return s.rank[j] - s.rank[i]; // 5
  if (ra && rb) { // 6
    const c = compareTimes(readyTime(a), readyTime(b), s.now, a, b);
    if (c !== 0) return c;
  }
  const [rega, sidea] = maxRestarts(a); // 7
  const [regb, sideb] = maxRestarts(b);
  if (rega !== regb) return regb - rega;
  if (sidea !== sideb) return sideb - sidea;
  return compareTimes(time(a.metadata?.creationTimestamp), time(b.metadata?.creationTimestamp), s.now, a, b); // 8
}

/**
 * Newer (or empty) first. With LogarithmicScaleDown (on by default) two times
 * in the same power-of-two bucket of age tie and the uid decides.
 */
function compareTimes(t1: number | undefined, t2: number | undefined, now: Date, a: Pod, b: Pod): number {
  if (t1 === t2) return 0;
  if (t1 === undefined) return -1; // afterOrZero: a zero time counts as the newest
  if (t2 === undefined) return 1;
  const diff = logBucket(now.getTime() - t1) - logBucket(now.getTime() - t2);
  if (diff !== 0) return diff;
  const ua = a.metadata?.uid ?? '';
  const ub = b.metadata?.uid ?? '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/** int64(math.Log2(age in nanoseconds)), -1 for an age of zero or less. */
const logBucket = (ageMs: number) => (ageMs > 0 ? Math.floor(Math.log2(ageMs * 1e6)) : -1);

const time = (s: string | undefined) => (s ? Date.parse(s) : undefined);

function readyTime(p: Pod): number | undefined {
  const c = podCondition(p, 'Ready');
  return c?.status === 'True' ? time(c.lastTransitionTime) : undefined;
}

function deletionCost(p: Pod): number {
  const v = p.metadata?.annotations?.[podDeletionCostAnnotation];
  const n = v === undefined ? 0 : Number(v);
  return Number.isInteger(n) ? n : 0;
}

/** maxContainerRestarts: the highest restart count of the regular containers, then of the sidecars (restartPolicy Always init containers). */
function maxRestarts(p: Pod): [number, number] {
  let regular = 0;
  for (const c of p.status?.containerStatuses ?? []) regular = Math.max(regular, c.restartCount ?? 0);
  const sidecars = new Set((p.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  let sidecar = 0;
  for (const c of p.status?.initContainerStatuses ?? []) if (sidecars.has(c.name)) sidecar = Math.max(sidecar, c.restartCount ?? 0);
  return [regular, sidecar];
}

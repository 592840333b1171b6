/**
 * Cluster-wide pod counts, as the dashboard's header strip shows them: by
 * owner kind (pod-card.ts's groups) and card state, and by `status.phase`
 * (what `kubectl get pods -o jsonpath={.items[*].status.phase}` reports).
 * One set of rules for the API server's pod summary (kept current from its
 * watch, per namespace) and for the page when it lists every pod itself.
 *
 * A tally is added to and taken from one pod at a time, so a watch-fed
 * owner keeps it current at O(1) an event: no list of every pod to count.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ownerOf, podState, podStates, type OwnerKind } from './pod-card.js';

/** The owner kinds, in the strip's order (Pod: no owner, or one of a kind the map does not group by). */
export const ownerKinds: readonly OwnerKind[] = ['DaemonSet', 'StatefulSet', 'Deployment', 'ReplicaSet', 'Job', 'Static', 'Pod'];

/** PodPhase's values (core/v1); a pod with none yet counts as Pending, the phase the API server gives it at create. */
export const podPhases = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const;
export type PodPhase = typeof podPhases[number];

/** A pod's place in a tally: owner kind, card state and phase, as indexes. */
export interface TallyKey { kind: number; state: number; phase: number }

/** The wire form: counts by owner kind (in podStates' order, kinds without pods left out) and by phase. */
export interface PodTotals { pods: number; phases: Record<PodPhase, number>; owners: Partial<Record<OwnerKind, number[]>> }

export function tallyKey(p: Pod, kind: OwnerKind = ownerOf(p).kind): TallyKey {
  const phase = podPhases.indexOf((p.status?.phase ?? 'Pending') as PodPhase);
  return { kind: ownerKinds.indexOf(kind), state: podStates.indexOf(podState(p)), phase: phase < 0 ? podPhases.indexOf('Unknown') : phase };
}

export class PodTally {
  pods = 0;
  private readonly owners = ownerKinds.map(() => podStates.map(() => 0));
  private readonly phases = podPhases.map(() => 0);

  add(k: TallyKey, by = 1): void {
    this.pods += by;
    this.owners[k.kind][k.state] += by;
    this.phases[k.phase] += by;
  }

  remove(k: TallyKey): void { this.add(k, -1); }

  /** Adds every count of `other` (the sum over namespaces). */
  addAll(other: PodTally): void {
    this.pods += other.pods;
    other.owners.forEach((row, i) => row.forEach((n, j) => { this.owners[i][j] += n; }));
    other.phases.forEach((n, i) => { this.phases[i] += n; });
  }

  totals(): PodTotals {
    const owners: PodTotals['owners'] = {};
    ownerKinds.forEach((kind, i) => { if (this.owners[i].some((n) => n)) owners[kind] = [...this.owners[i]]; });
    return { pods: this.pods, phases: Object.fromEntries(podPhases.map((p, i) => [p, this.phases[i]])) as Record<PodPhase, number>, owners };
  }
}

/** The totals of a list of pods (the page without the server's summary). */
export function totalsOf(pods: Iterable<Pod>): PodTotals {
  const t = new PodTally();
  for (const p of pods) t.add(tallyKey(p));
  return t.totals();
}

/**
 * What the cluster map shows, derived from the pods and nodes the page
 * watches: pure functions, so the rules are in one place.
 */
import type { Node, Pod, Taint } from 'kubernetes-types/core/v1';
import { ownerOf, podState, type OwnerKind, type PodState } from '../../src/api/pod-card.js';

// The card rules are shared with the API server's pod summary, which counts the pods the page does not draw.
export { ownerOf, podState, type OwnerKind, type PodState } from '../../src/api/pod-card.js';

/** The order groups take inside a node's column. */
const kindOrder: OwnerKind[] = ['Static', 'DaemonSet', 'StatefulSet', 'Deployment', 'ReplicaSet', 'Job', 'Pod'];

export const podKey = (p: Pod) => `${p.metadata?.namespace}/${p.metadata?.name}`;

/** The kubelet's mirror pods carry this annotation (kubetypes.ConfigMirrorAnnotationKey). */
export const isMirrorPod = (p: Pod) => !!p.metadata?.annotations?.['kubernetes.io/config.mirror'];


/** A StatefulSet pod's ordinal: the number after its set's name (statefulset's getOrdinal). */
export function ordinalOf(p: Pod): number {
  const m = /-(\d+)$/.exec(p.metadata?.name ?? '');
  return m ? Number(m[1]) : -1;
}


export interface PodGroup { kind: OwnerKind; name: string; namespace: string; pods: Pod[] }

/** A column's pods grouped by owner, groups in kindOrder then by name, StatefulSet pods by ordinal. */
export function groupPods(pods: readonly Pod[]): PodGroup[] {
  const groups = new Map<string, PodGroup>();
  for (const p of pods) {
    const o = ownerOf(p);
    const ns = p.metadata?.namespace ?? '';
    const key = `${o.kind}/${ns}/${o.name}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { kind: o.kind, name: o.name, namespace: ns, pods: [] }));
    g.pods.push(p);
  }
  const out = [...groups.values()];
  for (const g of out) {
    g.pods.sort(g.kind === 'StatefulSet' ? (a, b) => ordinalOf(a) - ordinalOf(b) : (a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
  }
  return out.sort(compareGroups);
}

/** Groups in kindOrder, then by namespace/name. */
export const compareGroups = (a: { kind: OwnerKind; namespace: string; name: string }, b: { kind: OwnerKind; namespace: string; name: string }) =>
  kindOrder.indexOf(a.kind) - kindOrder.indexOf(b.kind) || `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`);

/** node-role.kubernetes.io/<role> labels, as kubectl get nodes' ROLES column. */
export function nodeRoles(n: Node): string[] {
  const roles: string[] = [];
  for (const k of Object.keys(n.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) roles.push(k.slice('node-role.kubernetes.io/'.length));
  }
  return roles.length ? roles.sort() : ['<none>'];
}

export function nodeReady(n: Node): 'True' | 'False' | 'Unknown' {
  const c = n.status?.conditions?.find((x) => x.type === 'Ready');
  return (c?.status as 'True' | 'False' | undefined) ?? 'Unknown';
}

/** containerRuntimeVersion's scheme: simulated, containerd, process. */
export const nodeRuntime = (n: Node) => (n.status?.nodeInfo?.containerRuntimeVersion ?? '').split('://')[0] || 'unknown';

/** kubectl taint's spelling: key=value:Effect (key:Effect without a value). */
export const taintText = (t: Taint) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;

export type StateCounts = Record<PodState, number>;

/** How many pods are in each state: what a column or group shows instead of cards it does not render. */
export function countStates(pods: Iterable<Pod>): StateCounts {
  const c: StateCounts = { ready: 0, running: 0, pending: 0, succeeded: 0, failed: 0, terminating: 0 };
  for (const p of pods) c[podState(p)]++;
  return c;
}

/** "3 ready, 1 pending": the non-zero counts in a fixed order. */
export const countsText = (c: StateCounts) => (Object.keys(c) as PodState[]).filter((k) => c[k]).map((k) => `${c[k]} ${k}`).join(', ');

/** Pods by the node they are bound to ('' for none yet), each node's pods in one array: one pass over all pods. */
export function podsByNode(pods: Iterable<Pod>): Map<string, Pod[]> {
  const by = new Map<string, Pod[]>([['', []]]);
  for (const p of pods) {
    const n = p.spec?.nodeName ?? '';
    let list = by.get(n);
    if (!list) by.set(n, (list = []));
    list.push(p);
  }
  return by;
}

/**
 * Which of `count` columns of width `width` (px, gap included) a viewport
 * [scrollLeft, scrollLeft + viewWidth) shows, with `overscan` more either
 * side so a short scroll finds them drawn: [first, end).
 */
export function visibleRange(o: { count: number; width: number; scrollLeft: number; viewWidth: number; overscan: number }): [number, number] {
  const first = Math.max(0, Math.floor(o.scrollLeft / o.width) - o.overscan);
  const end = Math.min(o.count, Math.ceil((o.scrollLeft + o.viewWidth) / o.width) + o.overscan);
  return [first, Math.max(first, end)];
}

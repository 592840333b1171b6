/**
 * How the dashboard's map classes a pod: its card's state (colour) and the
 * owner group it is drawn in. One set of rules for both sides: the page
 * (web/src/model.ts re-exports these) for the pods it draws, the API server's
 * pod summary (apiserver/pod-summary) for every pod, to count what the page
 * does not draw.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';

/** The order of a group's counts on the wire. */
export const podStates = ['ready', 'running', 'pending', 'succeeded', 'failed', 'terminating'] as const;
export type PodState = typeof podStates[number];

export type OwnerKind = 'DaemonSet' | 'StatefulSet' | 'Deployment' | 'ReplicaSet' | 'Job' | 'Static' | 'Pod';

/** Terminating first (deletionTimestamp), then the phase, Running split by the Ready condition. */
export function podState(p: Pod): PodState {
  if (p.metadata?.deletionTimestamp) return 'terminating';
  switch (p.status?.phase) {
    case 'Succeeded': return 'succeeded';
    case 'Failed': return 'failed';
    case 'Running': return p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? 'ready' : 'running';
    default: return 'pending';
  }
}

const knownKinds = new Set<string>(['DaemonSet', 'StatefulSet', 'ReplicaSet', 'Job']);

/**
 * The controlling owner, as the map groups pods: a mirror pod (the kubelet's
 * `kubernetes.io/config.mirror` annotation) or one owned by its Node is
 * static; a ReplicaSet's pod carrying `pod-template-hash` belongs to the
 * Deployment whose name the ReplicaSet's name extends (the Deployment
 * controller's naming); an owner of another kind, or none, is a bare pod.
 */
export function ownerOf(p: Pod): { kind: OwnerKind; name: string } {
  const refs = p.metadata?.ownerReferences;
  const ref = refs?.find((r) => r.controller) ?? refs?.[0];
  if (p.metadata?.annotations?.['kubernetes.io/config.mirror'] || ref?.kind === 'Node') return { kind: 'Static', name: p.spec?.nodeName ?? '' };
  if (!ref) return { kind: 'Pod', name: '' };
  const hash = p.metadata?.labels?.['pod-template-hash'];
  if (ref.kind === 'ReplicaSet' && hash) return { kind: 'Deployment', name: ref.name.endsWith(`-${hash}`) ? ref.name.slice(0, -hash.length - 1) : ref.name };
  return { kind: knownKinds.has(ref.kind) ? ref.kind as OwnerKind : 'Pod', name: ref.name };
}

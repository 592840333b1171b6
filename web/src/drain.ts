/**
 * What `kubectl drain NODE --ignore-daemonsets` does with each pod on the
 * node (kubectl's drain filters, in its order):
 *  1. a finished pod (Succeeded/Failed) is deleted whatever else holds;
 *  2. a mirror pod is skipped silently (the kubelet owns it; deleting the
 *     mirror would not stop the static pod);
 *  3. a DaemonSet's pod is skipped with a warning (--ignore-daemonsets: the
 *     DaemonSet controller would put it back; it tolerates unschedulable);
 *  4. a pod with emptyDir is an error unless --delete-emptydir-data (its data
 *     is lost);
 *  5. a pod no controller declares is an error unless --force (nothing would
 *     recreate it), a warning with it.
 * Any error stops the drain before a single eviction, as kubectl does; the
 * node stays cordoned.
 */
import type { Pod } from 'kubernetes-types/core/v1';
import { isMirrorPod } from './model.js';

export interface DrainOptions { force: boolean; deleteEmptyDirData: boolean }
export interface DrainPlan { evict: Pod[]; warnings: string[]; errors: string[] }

const key = (p: Pod) => `${p.metadata?.namespace}/${p.metadata?.name}`;
const controllerOf = (p: Pod) => p.metadata?.ownerReferences?.find((r) => r.controller);

export function planDrain(pods: readonly Pod[], o: DrainOptions): DrainPlan {
  const evict: Pod[] = [];
  const skipped = { daemonSet: [] as string[], unreplicated: [] as string[] };
  const refused = { localStorage: [] as string[], unreplicated: [] as string[] };
  for (const p of pods) {
    if (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') { evict.push(p); continue; }
    if (isMirrorPod(p)) continue;
    const ctl = controllerOf(p);
    if (ctl?.kind === 'DaemonSet') { skipped.daemonSet.push(key(p)); continue; }
    if (!o.deleteEmptyDirData && p.spec?.volumes?.some((v) => v.emptyDir)) { refused.localStorage.push(key(p)); continue; }
    if (!ctl) {
      if (!o.force) { refused.unreplicated.push(key(p)); continue; }
      skipped.unreplicated.push(key(p));
    }
    evict.push(p);
  }
  const warnings: string[] = [];
  if (skipped.daemonSet.length) warnings.push(`Warning: ignoring DaemonSet-managed Pods: ${skipped.daemonSet.join(', ')}`);
  if (skipped.unreplicated.length) warnings.push(`Warning: deleting Pods that declare no controller: ${skipped.unreplicated.join(', ')}`);
  const errors: string[] = [];
  if (refused.localStorage.length) errors.push(`cannot delete Pods with local storage (use --delete-emptydir-data to override): ${refused.localStorage.join(', ')}`);
  if (refused.unreplicated.length) errors.push(`cannot delete Pods that declare no controller (use --force to override): ${refused.unreplicated.join(', ')}`);
  return { evict, warnings, errors };
}

/** The command line the dialog shows. */
export const drainCommand = (node: string, o: DrainOptions) =>
  `kubectl drain ${node} --ignore-daemonsets${o.deleteEmptyDirData ? ' --delete-emptydir-data' : ''}${o.force ? ' --force' : ''}`;

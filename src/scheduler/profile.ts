/**
 * The default-scheduler profile: upstream's default plugins (v1
 * default_plugins.go) that k8ts implements, in upstream's order, with
 * upstream's score weights (TaintToleration 3, NodeAffinity 2,
 * PodTopologySpread 2, InterPodAffinity 2, NodeResourcesFit 1,
 * NodeResourcesBalancedAllocation 1).
 */
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ClusterEvent, EnqueueExtensions, Plugin } from './framework.js';
import type { PluginSet } from './runtime.js';
import { NodeUnschedulable } from './plugins/nodeunschedulable.js';
import { NodeName } from './plugins/nodename.js';
import { TaintToleration } from './plugins/tainttoleration.js';
import { NodeAffinity } from './plugins/nodeaffinity.js';
import { NodePorts } from './plugins/nodeports.js';
import { NodeResourcesFit } from './plugins/noderesourcesfit.js';
import { BalancedAllocation } from './plugins/balancedallocation.js';
import { DefaultPreemption } from './plugins/defaultpreemption.js';
import { PodTopologySpread, type DefaultSelector } from './plugins/podtopologyspread.js';
import { InterPodAffinity } from './plugins/interpodaffinity.js';
import type { NamespaceLabels } from './plugins/affinity-terms.js';
import type { VolumeBinding } from './plugins/volumebinding.js';
import { VolumeRestrictions, type ClaimGetter } from './plugins/volumerestrictions.js';

export const defaultSchedulerName = 'default-scheduler';

export interface Profile {
  readonly schedulerName: string;
  readonly plugins: PluginSet;
  /** Plugins whose queueing hints decide which cluster events retry a pod they rejected. */
  readonly enqueue: readonly (Plugin & EnqueueExtensions)[];
  /** VolumeBinding also acts at PreBind (claims get their node before the pod is bound). */
  readonly volumeBinding?: VolumeBinding;
}

/** What the plugins read besides nodes and pods; without it, no namespace labels and no default spreading. */
export interface ProfileListers {
  /** The PodDisruptionBudgets preemption honours (none by default). */
  pdbs?: () => readonly PodDisruptionBudget[];
  /** Namespace labels for pod affinity terms' namespaceSelector. */
  namespaceLabels?: NamespaceLabels;
  /** The workload selector PodTopologySpread's system defaults spread over. */
  defaultSelector?: DefaultSelector;
  /** Claims by `namespace/name`, for VolumeRestrictions (without them the plugin is left out). */
  claims?: ClaimGetter;
}

export function defaultProfile(volumeBinding?: VolumeBinding, listers: ProfileListers = {}): Profile {
  const unschedulable = new NodeUnschedulable();
  const nodeName = new NodeName();
  const taints = new TaintToleration();
  const affinity = new NodeAffinity();
  const ports = new NodePorts();
  const fit = new NodeResourcesFit();
  const balanced = new BalancedAllocation();
  const spread = new PodTopologySpread(listers.defaultSelector);
  const interPod = new InterPodAffinity(listers.namespaceLabels);
  const volume = [...(listers.claims ? [new VolumeRestrictions(listers.claims)] : []), ...(volumeBinding ? [volumeBinding] : [])];
  return {
    schedulerName: defaultSchedulerName,
    plugins: {
      preFilter: [affinity, ports, fit, ...volume, spread, interPod],
      filter: [unschedulable, nodeName, taints, affinity, ports, fit, ...volume, spread, interPod],
      postFilter: [new DefaultPreemption(listers.pdbs)],
      preScore: [taints, affinity, fit, spread, interPod, balanced],
      score: [
        { plugin: taints, weight: 3 }, { plugin: affinity, weight: 2 }, { plugin: fit, weight: 1 }, { plugin: spread, weight: 2 },
        { plugin: interPod, weight: 2 }, { plugin: balanced, weight: 1 },
      ],
    },
    enqueue: [unschedulable, nodeName, taints, affinity, ports, fit, spread, interPod],
    volumeBinding,
  };
}

/**
 * Whether a cluster event may help a pod the given plugins rejected: some
 * rejecting plugin registered for the event says Queue; a rejecting plugin
 * without EnqueueExtensions counts as interested in every event, as upstream.
 */
export function eventMayHelp(profile: Profile, rejectedBy: ReadonlySet<string>, event: ClusterEvent, pod: Pod): boolean {
  for (const name of rejectedBy) {
    const p = profile.enqueue.find((e) => e.name === name);
    if (!p) return true;
    if (p.events.includes(event.type) && p.queueingHint(event, pod) === 'Queue') return true;
  }
  return false;
}

/**
 * The default-scheduler profile: upstream's default plugins (v1
 * default_plugins.go) that k8ts implements, in upstream's order, with
 * upstream's score weights (TaintToleration 3, NodeAffinity 2,
 * NodeResourcesFit 1, NodeResourcesBalancedAllocation 1).
 */
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
import type { VolumeBinding } from './plugins/volumebinding.js';

export const defaultSchedulerName = 'default-scheduler';

export interface Profile {
  readonly schedulerName: string;
  readonly plugins: PluginSet;
  /** Plugins whose queueing hints decide which cluster events retry a pod they rejected. */
  readonly enqueue: readonly (Plugin & EnqueueExtensions)[];
  /** VolumeBinding also acts at PreBind (claims get their node before the pod is bound). */
  readonly volumeBinding?: VolumeBinding;
}

/** `pdbs` lists the PodDisruptionBudgets preemption honours (none by default). */
export function defaultProfile(volumeBinding?: VolumeBinding, pdbs?: () => readonly any[]): Profile {
  const unschedulable = new NodeUnschedulable();
  const nodeName = new NodeName();
  const taints = new TaintToleration();
  const affinity = new NodeAffinity();
  const ports = new NodePorts();
  const fit = new NodeResourcesFit();
  const balanced = new BalancedAllocation();
  return {
    schedulerName: defaultSchedulerName,
    plugins: {
      preFilter: [affinity, ports, fit, ...(volumeBinding ? [volumeBinding] : [])],
      filter: [unschedulable, nodeName, taints, affinity, ports, fit, ...(volumeBinding ? [volumeBinding] : [])],
      postFilter: [new DefaultPreemption(pdbs)],
      preScore: [taints, affinity, fit, balanced],
      score: [
        { plugin: taints, weight: 3 }, { plugin: affinity, weight: 2 }, { plugin: fit, weight: 1 }, { plugin: balanced, weight: 1 },
      ],
    },
    enqueue: [unschedulable, nodeName, taints, affinity, ports, fit],
    volumeBinding,
  };
}

/**
 * Whether a cluster event may help a pod the given plugins rejected: some
 * rejecting plugin registered for the event says Queue; a rejecting plugin
 * without EnqueueExtensions counts as interested in every event, as upstream.
 */
export function eventMayHelp(profile: Profile, rejectedBy: ReadonlySet<string>, event: ClusterEvent, pod: any): boolean {
  for (const name of rejectedBy) {
    const p = profile.enqueue.find((e) => e.name === name);
    if (!p) return true;
    if (p.events.includes(event.type) && p.queueingHint(event, pod) === 'Queue') return true;
  }
  return false;
}

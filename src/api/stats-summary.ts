/**
 * The kubelet's Summary API (upstream pkg/kubelet/apis/stats/v1alpha1), cut to
 * what metrics-server and `kubectl top` read: CPU and memory of the node, of
 * each pod and of each container. Times are RFC 3339 strings, as the kubelet
 * serves them; a field a runtime did not measure is absent.
 */

export interface CPUStats {
  time: string;
  /** Total CPU usage (all cores) averaged over the sampling window, in nano-cores. */
  usageNanoCores?: number;
  /** Cumulative CPU usage (all cores) since the object was created. */
  usageCoreNanoSeconds?: number;
}

export interface MemoryStats {
  time: string;
  availableBytes?: number;
  usageBytes?: number;
  /** usageBytes minus inactive file pages: what metrics-server reports as memory. */
  workingSetBytes?: number;
  rssBytes?: number;
}

export interface ContainerStats {
  name: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
}

export interface PodReference { name: string; namespace: string; uid: string }

export interface PodStats {
  podRef: PodReference;
  startTime: string;
  containers: ContainerStats[];
  cpu?: CPUStats;
  memory?: MemoryStats;
}

export interface NodeStats {
  nodeName: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
}

export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

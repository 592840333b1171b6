/**
 * What the kubelet server asks of the kubelet (upstream's HostInterface, cut
 * to what is served so far): the pods bound to the node, their status as the
 * kubelet computes it now, and the runtime that holds their containers.
 */
import type { Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import type { PodRuntime } from '../runtime/runtime.js';
import type { Summary } from '../../api/stats-summary.js';

export interface KubeletHost {
  readonly nodeName: string;
  pods(): Pod[];
  podByName(namespace: string, name: string): Pod | undefined;
  podStatus(pod: Pod): PodStatus | undefined;
  readonly runtime: PodRuntime;
  /** The resource summary (GET /stats/summary); absent: the route answers 404 as for an unknown path. */
  summary?(): Promise<Summary>;
}

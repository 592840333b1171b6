/**
 * The kernel's OOM killer at a container's memory limit, for the simulated
 * runtime (upstream: the cgroup's memory.max; the kubelet sets
 * memory.oom.group, so the whole container is killed with SIGKILL, and the
 * runtime reports exit code 137, reason OOMKilled):
 *
 *  1. Only a container whose working set the model knows to grow (a stress
 *     program, stress.ts) is killed: the first moment its working set
 *     passes its memory limit.
 *  2. A container without a memory limit is not killed here (the node's
 *     own OOM and the kubelet's eviction are not modelled).
 *  3. The kubelet shows the killed instance (STATUS OOMKilled) until its
 *     next sync of the pod: the first restart is at once (its next relist,
 *     1 s), a later one waits for the pod worker's back-off requeue
 *     (upstream's workerBackOffPeriod, 10 s) and then the crash back-off
 *     (CrashLoopBackOff), as on a real node: the memory page's
 *     `OOMKilled 1`, then `Running 2`.
 */
import type { Container } from 'kubernetes-types/core/v1.js';
import { integerValue, parseQuantity } from '../../../api/quantity.js';
import { stressWorkload } from './stress.js';

export const oomKillExitCode = 137;
export const oomKilledReason = 'OOMKilled';
/** Rule 3: the kubelet's next relist (PLEG, 1 s) and its pod worker's back-off requeue (10 s). */
export const firstRestartSyncMs = 1000;
export const backoffRequeueMs = 10_000;

/** Rules 1 and 2: how long after its start the container is OOM-killed; undefined when it never is. */
export function oomKillAfterMs(c: Container): number | undefined {
  const q = parseQuantity(c.resources?.limits?.memory);
  const limit = q ? Number(integerValue(q)) : 0;
  if (limit <= 0) return undefined;
  return stressWorkload(c)?.exceedsAfter(limit);
}

/**
 * Which container instance a log request reads, from the pod status (the
 * kubelet's validateContainerLogStatus, pkg/kubelet/kubelet_pods.go), with
 * upstream's words for every case that has no log:
 *
 *  1. The container must have a status (regular, init or ephemeral).
 *  2. previous: the last terminated instance, or "previous terminated
 *     container ... not found".
 *  3. Running: the current instance.
 *  4. Terminated: that instance, or the last terminated one when the new one
 *     never started; else "is terminated".
 *  5. Only a last termination: that instance.
 *  6. Waiting: "is waiting to start" with the reason (image pull failures
 *     get their own words); no state at all: "is waiting to start - no logs yet".
 */
import type { ContainerStatus, PodStatus } from 'kubernetes-types/core/v1.js';

export type LogContainer = { containerID: string } | { error: string };

export function containerForLogs(podName: string, status: PodStatus | undefined, container: string, previous: boolean): LogContainer {
  const find = (list?: ContainerStatus[]) => list?.find((s) => s.name === container);
  const cs = find(status?.containerStatuses) ?? find(status?.initContainerStatuses) ?? find(status?.ephemeralContainerStatuses);
  const who = `container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)}`;
  if (!cs) return { error: `${who} is not available` };
  const last = cs.lastState?.terminated;
  const { waiting, running, terminated } = cs.state ?? {};
  if (previous) {
    if (!last?.containerID) return { error: `previous terminated container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)} not found` };
    return { containerID: last.containerID };
  }
  if (running) return cs.containerID ? { containerID: cs.containerID } : { error: `${who} is waiting to start - no logs yet` };
  if (terminated) {
    if (terminated.containerID) return { containerID: terminated.containerID };
    if (last?.containerID) return { containerID: last.containerID };
    return { error: `${who} is terminated` };
  }
  if (last) return last.containerID ? { containerID: last.containerID } : { error: `${who} is terminated` };
  if (waiting) {
    if (waiting.reason === 'ErrImagePull') return { error: `${who} is waiting to start: image can't be pulled` };
    if (waiting.reason === 'ImagePullBackOff') return { error: `${who} is waiting to start: trying and failing to pull image` };
    return { error: `${who} is waiting to start: ${waiting.reason ?? ''}` };
  }
  return { error: `${who} is waiting to start - no logs yet` };
}

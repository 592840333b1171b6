/**
 * What one sync of a pod should start (upstream computePodActions, cut
 * down), shared by the runtimes that keep PodEntry records (CRI, process):
 *
 *  1. Init containers in order: each must exit 0 before the next runs; a
 *     sidecar (restartPolicy Always) only needs to be started, and the ones
 *     after it follow in the same sync. A failed init container under
 *     restartPolicy Never stops the pod there.
 *  2. Then every regular container without a running instance starts, or
 *     restarts as the restart policy says (Always; OnFailure when the exit
 *     code is not 0).
 *  0. Before both, in a pod whose sandbox is ready, every ephemeral container
 *     the runtime has no instance of starts, even while init containers run
 *     or fail; one that ran is never started again. They never make `work`:
 *     a new sandbox starts none.
 * `work` says whether anything still has to run at all (a pod whose sandbox
 * is gone and has nothing left to do stays down, as upstream).
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { instances, latestSandbox, type ContainerRecord, type PodEntry } from './podstate.js';

export interface ContainerStart {
  container: Container;
  /** The restart count of the new instance. */
  restartCount: number;
  /** The instance it replaces, if any (the back-off starts from its finish). */
  latest?: ContainerRecord;
  /** An ephemeral container: started once; its targetContainerName ('' for none) shares that container's PID namespace. */
  ephemeral?: { targetContainerName: string };
}

const isRunning = (c: ContainerRecord) => c.state === 'CONTAINER_RUNNING' || c.state === 'CONTAINER_CREATED';

export const restartable = (policy: string | undefined, exitCode: number | undefined) =>
  policy === 'Always' || policy === undefined || (policy === 'OnFailure' && exitCode !== 0);

/** What the container should do now: nothing, start (restartCount), or nothing more ever. */
export function containerAction(p: PodEntry, c: Container, policy: string | undefined): { start: number } | 'keep' | 'done' {
  const [latest] = instances(p, c.name);
  if (!latest) return { start: 0 };
  if (isRunning(latest)) return 'keep';
  if (!restartable(policy, latest.exitCode)) return 'done';
  return { start: latest.attempt + 1 };
}

const initPolicy = (c: Container, policy: string | undefined) => (c.restartPolicy === 'Always' ? 'Always' : policy === 'Never' ? 'Never' : 'OnFailure');

/** Rule 0 (upstream: EphemeralContainersToStart, only when the sandbox need not be created). */
function ephemeralStarts(p: PodEntry, pod: Pod): ContainerStart[] {
  const sb = latestSandbox(p);
  if (!sb || sb.state !== 'SANDBOX_READY') return [];
  return (pod.spec!.ephemeralContainers ?? []).filter((ec) => instances(p, ec.name).length === 0).map((ec) => {
    const { targetContainerName, ...common } = ec;
    return { container: common as Container, restartCount: 0, ephemeral: { targetContainerName: targetContainerName ?? '' } };
  });
}

export function computePodActions(p: PodEntry, pod: Pod): { work: boolean; starts: ContainerStart[] } {
  const spec = pod.spec!;
  const policy = spec.restartPolicy;
  const init = spec.initContainers ?? [];
  const work = [...init, ...spec.containers].some((c) => containerAction(p, c, c.restartPolicy === 'Always' ? 'Always' : policy) !== 'done');
  const starts: ContainerStart[] = ephemeralStarts(p, pod);
  const start = (c: Container, restartCount: number) => starts.push({ container: c, restartCount, latest: instances(p, c.name)[0] });
  for (const c of init) {
    const sidecar = c.restartPolicy === 'Always';
    const action = containerAction(p, c, initPolicy(c, policy));
    if (action === 'keep') { if (sidecar) continue; return { work, starts }; }
    if (action === 'done') {
      if (instances(p, c.name)[0]?.exitCode === 0) continue;
      return { work, starts };
    }
    start(c, action.start);
    if (!sidecar) return { work, starts };
  }
  for (const c of spec.containers) {
    const action = containerAction(p, c, policy);
    if (typeof action === 'object') start(c, action.start);
  }
  return { work, starts };
}

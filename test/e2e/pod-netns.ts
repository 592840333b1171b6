/**
 * The network namespace of a containerd pod, as a path for `nsenter --net=`:
 * /proc/PID/ns/net of its first container's task (the container shares the
 * sandbox's namespace), found with `ctr task ls` on the runtime's socket. A
 * test then probes from inside the pod's own namespace without `kubectl exec`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Pod } from 'kubernetes-types/core/v1.js';

const run = promisify(execFile);

export async function netnsOfPod(containerdSocket: string, pod: Pod): Promise<string> {
  const id = pod.status?.containerStatuses?.[0]?.containerID?.replace('containerd://', '');
  if (!id) throw new Error(`pod ${pod.metadata?.namespace}/${pod.metadata?.name} has no container yet`);
  // `ctr task ls`: TASK PID STATUS, one task a line.
  const tasks = (await run('ctr', ['--address', containerdSocket, '-n', 'k8s.io', 'task', 'ls'])).stdout;
  const pid = tasks.split('\n').map((l) => l.trim().split(/\s+/)).find((f) => f[0] === id)?.[1];
  if (!pid) throw new Error(`no task for container ${id}:\n${tasks}`);
  return `/proc/${pid}/ns/net`;
}

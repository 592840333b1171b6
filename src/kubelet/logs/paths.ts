/**
 * Where container logs live, as the kubelet lays them out under its pod logs
 * directory (KubeletConfiguration podLogsDir, /var/log/pods upstream):
 * `<namespace>_<pod>_<uid>/<container>/<restartCount>.log`.
 */
import { join } from 'node:path';

export function podLogsDirectory(root: string, pod: { namespace: string; name: string; uid: string }): string {
  return join(root, `${pod.namespace}_${pod.name}_${pod.uid}`);
}

export function containerLogPath(root: string, pod: { namespace: string; name: string; uid: string }, container: string, restartCount: number): string {
  return join(podLogsDirectory(root, pod), container, `${restartCount}.log`);
}

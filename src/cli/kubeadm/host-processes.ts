/**
 * reset's "remove the node's containers" for the host-process runtime: a
 * stopped kubelet leaves its pods running (as upstream's does), so reset ends
 * every process the runtime recorded under the kubelet's directory — SIGTERM
 * to the process group, SIGKILL after the grace period — as kubeadm reset
 * removes the CRI runtime's containers.
 */
import { listRecords, processAlive } from '../../kubelet/runtime/process/records.js';

export async function stopHostProcessPods(kubeletDir: string, graceMs = 10_000): Promise<string[]> {
  const running = listRecords(kubeletDir).flatMap(({ pod, instances }) =>
    instances.filter((i) => processAlive(i.rec)).map((i) => ({ name: `${pod.namespace}/${pod.name}`, rec: i.rec })));
  const signal = (rec: typeof running[number]['rec'], sig: NodeJS.Signals) => {
    if (processAlive(rec)) try { process.kill(-rec.pid, sig); } catch { /* already gone */ }
  };
  for (const r of running) signal(r.rec, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (running.some((r) => processAlive(r.rec)) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
  for (const r of running) signal(r.rec, 'SIGKILL');
  while (running.some((r) => processAlive(r.rec))) await new Promise((res) => setTimeout(res, 50));
  return [...new Set(running.map((r) => r.name))];
}

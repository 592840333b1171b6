/** `k8ts lab status`: each machine's namespace, address, containerd and kubelet, as a table. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { netnsList } from './machine.js';
import type { Lab, LabMachine } from './state.js';

const alive = (pid: number | undefined) => { if (!pid) return false; try { process.kill(pid, 0); return true; } catch { return false; } };

/** The kubelet's supervised pid file (kubeadm/service.ts: PREFIX/var/lib/kubelet/k8ts-kubelet.pid). */
function kubeletRunning(m: LabMachine): boolean {
  const pidFile = join(m.prefix, 'var/lib/kubelet/k8ts-kubelet.pid');
  return existsSync(pidFile) && alive(Number(readFileSync(pidFile, 'utf8').trim()));
}

export async function labStatus(lab: Lab): Promise<string> {
  const namespaces = new Set(await netnsList());
  const rows = [['NAME', 'ADDRESS', 'NAMESPACE', 'CONTAINERD', 'KUBELET', 'PREFIX']];
  for (const m of lab.machines) {
    rows.push([
      m.name, m.address, namespaces.has(m.netns) ? m.netns : `${m.netns} (missing)`,
      alive(m.containerdPid) ? `running (pid ${m.containerdPid})` : 'stopped', kubeletRunning(m) ? 'running' : 'stopped', m.prefix,
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]! + 3))).join('')).join('\n');
}

/**
 * What `k8ts lab up` made, recorded in DIR/lab.json so that exec, status and down (other
 * processes, later) find every machine: its network namespace, address, --prefix and private
 * containerd (directory, socket, pid).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const defaultLabDir = '/var/lib/k8ts-lab';

export interface LabMachine {
  name: string;
  /** Its network namespace (/run/netns/NAME). */
  netns: string;
  /** Its eth0 address on the lab's bridge (10.77.0.x/24). */
  address: string;
  /** Root of its files: init/join/reset --prefix. */
  prefix: string;
  podSubnet: string;
  containerdDir: string;
  /** unix://..., its --cri-socket. */
  criSocket: string;
  containerdPid?: number;
}

export interface Lab {
  dir: string;
  /** The namespace holding the bridge every machine's eth0 is plugged into (the "switch"). */
  switchNetns: string;
  machines: LabMachine[];
}

export const labFile = (dir: string) => join(dir, 'lab.json');

export function readLab(dir: string): Lab | undefined {
  if (!existsSync(labFile(dir))) return undefined;
  return JSON.parse(readFileSync(labFile(dir), 'utf8')) as Lab;
}

export function writeLab(lab: Lab): void {
  writeFileSync(labFile(lab.dir), `${JSON.stringify(lab, null, 2)}\n`);
}

export function machineNamed(lab: Lab, name: string): LabMachine {
  const m = lab.machines.find((x) => x.name === name);
  if (!m) throw new Error(`no machine "${name}" in the lab (machines: ${lab.machines.map((x) => x.name).join(', ')})`);
  return m;
}

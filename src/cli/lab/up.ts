/**
 * `k8ts lab up`: N machines on this host (lab.ts has the picture), each with a private
 * containerd started in its namespace (containerd/launch.ts, the same code `k8ts up
 * --runtime cri` and the tests use, detached so it outlives this command), then `k8ts init`
 * on the first, and what to type next. A failure part-way removes what was made (down.ts).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { localImages } from '../containerd/images.js';
import { startContainerd } from '../containerd/launch.js';
import { containerdPreflight, fileExisting } from '../containerd/preflight.js';
import { runChecks } from '../kubeadm/preflight.js';
import { labDown } from './down.js';
import { captureOnMachine } from './exec.js';
import { createMachineNetwork, createSwitch, netnsList } from './machine.js';
import { readLab, writeLab, type Lab, type LabMachine } from './state.js';

export interface LabUpOptions {
  dir: string;
  names: string[];
  netnsPrefix: string;
  /** init's --pod-network-cidr (the pod network between machines); empty: none. */
  podNetworkCIDR: string;
}

/** master, worker1, worker2, ... (the seed notes' names). */
export const defaultNames = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 ? 'master' : `worker${i}`));

/** RFC 1123 labels (node names are host names); at most 253 machines on one /24. */
export function checkNames(names: string[]): string | undefined {
  if (names.length < 1 || names.length > 253) return `--nodes must be between 1 and 253, got ${names.length}`;
  const bad = names.find((n) => !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(n));
  if (bad !== undefined) return `invalid machine name "${bad}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`;
  if (new Set(names).size !== names.length) return 'machine names must be distinct';
  return undefined;
}

export async function labUp(o: LabUpOptions): Promise<number> {
  const dir = resolve(o.dir);
  if (readLab(dir)) throw new Error(`a lab is already up in ${dir}: k8ts lab down --dir ${dir} first`);
  const images = localImages();
  await containerdPreflight(images);
  await runChecks(['ip', 'nsenter', 'unshare'].map(fileExisting), new Set());
  const lab: Lab = { dir, switchNetns: `${o.netnsPrefix}-switch`, machines: [] };
  const taken = new Set(await netnsList());
  for (const ns of [lab.switchNetns, ...o.names.map((n) => `${o.netnsPrefix}-${n}`)]) {
    if (taken.has(ns)) throw new Error(`network namespace ${ns} already exists (another lab? k8ts lab down, or ip netns del ${ns})`);
  }
  mkdirSync(dir, { recursive: true });
  writeLab(lab);
  try {
    await createSwitch(lab.switchNetns);
    for (const [i, name] of o.names.entries()) {
      const m: LabMachine = {
        name, netns: `${o.netnsPrefix}-${name}`, address: `10.77.0.${i + 1}`, prefix: join(dir, name), podSubnet: `10.244.${i}.0/24`,
        containerdDir: join(dir, name, 'containerd'), criSocket: '',
      };
      await createMachineNetwork({ netns: m.netns, switchNetns: lab.switchNetns, address: m.address, port: `port${i}` });
      lab.machines.push(m);
      writeLab(lab);
      const ctrd = await startContainerd({
        dir: m.containerdDir, podSubnet: m.podSubnet, wrap: ['nsenter', `--net=/run/netns/${m.netns}`], images, detached: true,
      });
      ctrd.client.close();
      m.criSocket = ctrd.endpoint;
      m.containerdPid = ctrd.proc.pid;
      writeLab(lab);
      console.log(`[lab] machine ${name}: namespace ${m.netns}, address ${m.address}, containerd ${m.criSocket}`);
    }
    const master = lab.machines[0]!;
    console.log(`[lab] running k8ts init on ${master.name}`);
    const init = await captureOnMachine(master, [
      'k8ts', 'init', '--apiserver-advertise-address', master.address, ...(o.podNetworkCIDR ? ['--pod-network-cidr', o.podNetworkCIDR] : []),
    ]);
    process.stdout.write(init.stdout);
    process.stderr.write(init.stderr);
    if (init.code !== 0) throw new Error(`k8ts init on ${master.name} failed (exit ${init.code})`);
    console.log(nextSteps(lab, joinCommand(init.stdout)));
    return 0;
  } catch (err) {
    console.error(`[lab] ${(err as Error).message}; removing what was made`);
    await labDown(dir);
    return 1;
  }
}

/** The `k8ts join ...` init printed for workers, on one line. */
export function joinCommand(initOut: string): string | undefined {
  const m = /k8ts (join [^\n]*?)(?: \\\n\s*)?(--discovery-token-ca-cert-hash \S+)/.exec(initOut);
  return m ? `k8ts ${m[1]!.trim()} ${m[2]}` : undefined;
}

function nextSteps(lab: Lab, join: string | undefined): string {
  const lines = ['', `Your lab is up: ${lab.machines.length} machine(s) on the bridge 10.77.0.0/24 (state in ${lab.dir}).`, '', 'Enter a machine (a shell with its network, host name and KUBECONFIG):'];
  for (const m of lab.machines) lines.push(`  k8ts lab exec --dir ${lab.dir} ${m.name} -- bash      # ${m.address}`);
  if (join) {
    lines.push('', 'Join the workers (lab exec adds --prefix and --cri-socket):');
    for (const m of lab.machines.slice(1)) lines.push(`  k8ts lab exec --dir ${lab.dir} ${m.name} -- ${join}`);
  }
  lines.push('', `Then: k8ts lab exec --dir ${lab.dir} ${lab.machines[0]!.name} -- kubectl get nodes`, `Remove everything: k8ts lab down --dir ${lab.dir}`);
  return lines.join('\n');
}

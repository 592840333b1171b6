/**
 * `k8ts lab up|exec|status|down`: several kubeadm-style "machines" on this host, so the seed
 * notes (init on a master, join on workers, reset, rejoin) can be replayed command by
 * command without Docker (as kind's nodes-as-containers and minikube's multi-node do):
 *
 *   switch namespace (br0) ── port0 ─ eth0 10.77.0.1  master   (netns, containerd, prefix)
 *                          ── port1 ─ eth0 10.77.0.2  worker1  ...
 *
 * Each machine: a network namespace, its host name (a UTS namespace per command), eth0 on the
 * lab's bridge, a private containerd (sandbox image and CNI as `k8ts up --runtime cri`), and
 * its files under DIR/NAME (--prefix). Must run as root.
 */
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { labDown } from './down.js';
import { execOnMachine } from './exec.js';
import { labStatus } from './status.js';
import { defaultLabDir, machineNamed, readLab } from './state.js';
import { checkNames, defaultNames, labUp } from './up.js';

export const labHelp = `Make several kubeadm-style machines on this host (network namespaces with containerd) and run commands on them.

Usage:
  k8ts lab up [--nodes 3] [--names master,worker1,worker2] [--dir ${defaultLabDir}]
  k8ts lab exec [--dir DIR] NAME -- COMMAND [ARGS...]
  k8ts lab status [--dir DIR]
  k8ts lab down [--dir DIR]

up makes each machine (a network namespace, eth0 at 10.77.0.N/24 on a bridge shared by the
machines, a private containerd with the local pause image and CNI), runs k8ts init on the
first and prints the commands to enter each machine and join the workers. exec runs a
command on a machine: its network, its host name, KUBECONFIG=its admin.conf when it has one;
"k8ts init|join|reset" get the machine's --prefix and --cri-socket, "k8ts token" its
--kubeconfig, "k8ts etcd" its --prefix. down removes everything up made (reset on every machine, containerds,
namespaces, the bridge, nftables tables, DIR). Needs root (sudo).

Flags:
      --dir string     where the lab keeps its state and the machines' files (default "${defaultLabDir}")
      --names strings  the machines' names (host names and node names); the first runs the control plane
                       (default master,worker1,...)
      --nodes int      how many machines (default 3)
      --pod-network-cidr string   init's pod network: a /24 of it per machine, routed between them
                       ("" for none: each machine's pods on its own bridge only) (default "10.244.0.0/16")`;

export async function runLab(args: string[]): Promise<number> {
  const dash = args.indexOf('--');
  const own = dash < 0 ? args : args.slice(0, dash);
  const command = dash < 0 ? [] : args.slice(dash + 1);
  const { values, positionals } = parseArgs({
    args: own, strict: true, allowPositionals: true,
    options: { dir: { type: 'string', default: defaultLabDir }, nodes: { type: 'string' }, names: { type: 'string' }, 'pod-network-cidr': { type: 'string', default: '10.244.0.0/16' } },
  });
  const [verb, ...rest] = positionals;
  const dir = values.dir!;
  if (process.getuid?.() !== 0 && verb !== undefined) return fail('k8ts lab needs root: network namespaces, bridges and containerd (run it with sudo)');
  switch (verb) {
    case 'up': {
      if (rest.length) return fail(`unknown command "${rest[0]}" for "k8ts lab up"`);
      const n = values.nodes === undefined ? undefined : Number(values.nodes);
      if (n !== undefined && !Number.isInteger(n)) return fail(`invalid argument "${values.nodes}" for "--nodes" flag: strconv.ParseInt: parsing "${values.nodes}": invalid syntax`);
      const names = values.names ? values.names.split(',').map((s) => s.trim()) : defaultNames(n ?? 3);
      if (n !== undefined && values.names && names.length !== n) return fail(`--names gives ${names.length} names for --nodes ${n}`);
      const bad = checkNames(names);
      if (bad) return fail(bad);
      // Namespace names carry a random tag so a lab never takes a namespace something else owns.
      return labUp({ dir, names, netnsPrefix: `k8ts-lab-${randomBytes(2).toString('hex')}`, podNetworkCIDR: values['pod-network-cidr']! });
    }
    case 'exec': {
      if (rest.length !== 1 || command.length === 0) return fail('usage: k8ts lab exec NAME -- COMMAND [ARGS...]');
      const lab = readLab(dir);
      if (!lab) return fail(`no lab in ${dir} (k8ts lab up first)`);
      try { return await execOnMachine(machineNamed(lab, rest[0]!), command); } catch (err) { return fail((err as Error).message); }
    }
    case 'status': {
      const lab = readLab(dir);
      if (!lab) return fail(`no lab in ${dir} (k8ts lab up first)`);
      console.log(await labStatus(lab));
      return 0;
    }
    case 'down': return labDown(dir);
    default: return fail(`unknown command "${verb ?? ''}" for "k8ts lab"\nRun 'k8ts lab --help' for usage.`);
  }
}

function fail(message: string): number {
  console.error(`Error: ${message}`);
  return 1;
}

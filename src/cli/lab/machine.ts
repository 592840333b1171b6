/**
 * A "machine" of the lab, and of the multi-node tests: a network namespace with its own
 * eth0 (one end of a veth pair whose other end is a port of a bridge in the switch's
 * namespace), and commands run in it with a host name of its own.
 *
 * Commands enter the namespace with `nsenter --net` only (`ip netns exec` also remounts /sys,
 * hiding the cgroup mounts runc needs: "no cgroup mount found in mountinfo") and a fresh UTS
 * namespace whose host name is the machine's, so kubeadm's defaults (the node name is the
 * host name) hold as on a real machine. Every address stays inside namespaces made here
 * (/work/shared/notes/containerd-cri.md's network hygiene): the host's namespace gets nothing.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ip = (...args: string[]) => run('ip', args);

/** argv run inside machine `netns` with host name `hostName`. */
export const inMachine = (netns: string, hostName: string) => (argv: string[]): string[] =>
  ['nsenter', `--net=/run/netns/${netns}`, 'unshare', '--uts', 'sh', '-c', 'hostname "$0" && exec "$@"', hostName, ...argv];

/** A namespace with a bridge br0 (no address: it only switches frames between machines). */
export async function createSwitch(netns: string): Promise<void> {
  await ip('netns', 'add', netns);
  await ip('-n', netns, 'link', 'set', 'lo', 'up');
  await ip('-n', netns, 'link', 'add', 'br0', 'type', 'bridge');
  await ip('-n', netns, 'link', 'set', 'br0', 'up');
}

/** A machine's namespace with lo up and eth0 at `address`/24, plugged into the switch as `port`. */
export async function createMachineNetwork(o: { netns: string; switchNetns: string; address: string; port: string }): Promise<void> {
  await ip('netns', 'add', o.netns);
  await ip('-n', o.netns, 'link', 'set', 'lo', 'up');
  await ip('-n', o.netns, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', o.port, 'netns', o.switchNetns);
  await ip('-n', o.switchNetns, 'link', 'set', o.port, 'master', 'br0', 'up');
  await ip('-n', o.netns, 'addr', 'add', `${o.address}/24`, 'dev', 'eth0');
  await ip('-n', o.netns, 'link', 'set', 'eth0', 'up');
}

/** Every namespace name that exists (`ip netns list`). */
export async function netnsList(): Promise<string[]> {
  const { stdout } = await ip('netns', 'list');
  return stdout.split('\n').map((l) => l.split(' ')[0]!).filter(Boolean);
}

/**
 * Removes a namespace after SIGKILLing whatever still runs in it (`ip netns pids`): a
 * namespace's interfaces, addresses, routes and nftables tables go with it.
 */
export async function deleteNetns(netns: string): Promise<void> {
  if (!(await netnsList()).includes(netns)) return;
  const { stdout } = await ip('netns', 'pids', netns).catch(() => ({ stdout: '' }));
  for (const pid of stdout.split('\n').filter(Boolean)) {
    try { process.kill(Number(pid), 'SIGKILL'); } catch { /* gone */ }
  }
  await ip('netns', 'del', netns);
}

/**
 * A network of "machines" for the pod network's tests, all in network
 * namespaces the test creates: a link (bridge br0 in the first machine's
 * namespace, 10.77.0.0/24) shared by the machines given `onLink`, and a
 * router namespace (10.77.0.254 on the link, 10.78.0.1 on a second subnet)
 * behind which the machine given `routed` (at most one) sits alone on 10.78.0.0/24: it
 * reaches the link only through the routed hop (the VXLAN case of issue #21).
 * remove() deletes every namespace it made (with them every veth, bridge and
 * VXLAN device inside), also after a failed setup.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface NetMachine { name: string; netns: string; address: string }
export interface Topology { machines: NetMachine[]; router: { netns: string; linkAddress: string; routedAddress: string }; remove(): Promise<void> }

export async function buildTopology(tag: string, onLink: string[], routed: string[]): Promise<Topology> {
  if (routed.length > 1) throw new Error('one machine behind the router at most');
  const created: string[] = [];
  const remove = async () => { for (const ns of created.reverse()) await run('ip', ['netns', 'del', ns]).catch(() => undefined); };
  const ip = (...args: string[]) => run('ip', args);
  const addNetns = async (name: string) => {
    await ip('netns', 'add', name);
    created.push(name);
    await ip('-n', name, 'link', 'set', 'lo', 'up');
  };
  const machines: NetMachine[] = [];
  const router = { netns: `k8ts-pn-${tag}-router`, linkAddress: '10.77.0.254', routedAddress: '10.78.0.1' };
  try {
    const [first, ...rest] = onLink;
    const hub = `k8ts-pn-${tag}-${first}`;
    await addNetns(hub);
    await ip('-n', hub, 'link', 'add', 'br0', 'type', 'bridge');
    await ip('-n', hub, 'addr', 'add', '10.77.0.1/24', 'dev', 'br0');
    await ip('-n', hub, 'link', 'set', 'br0', 'up');
    machines.push({ name: first!, netns: hub, address: '10.77.0.1' });
    const plug = async (netns: string, address: string, port: string) => {
      await ip('-n', netns, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', port, 'netns', hub);
      await ip('-n', hub, 'link', 'set', port, 'master', 'br0', 'up');
      await ip('-n', netns, 'addr', 'add', `${address}/24`, 'dev', 'eth0');
      await ip('-n', netns, 'link', 'set', 'eth0', 'up');
    };
    for (const [i, name] of rest.entries()) {
      const netns = `k8ts-pn-${tag}-${name}`;
      await addNetns(netns);
      await plug(netns, `10.77.0.${i + 2}`, `p-${name}`.slice(0, 15));
      machines.push({ name, netns, address: `10.77.0.${i + 2}` });
    }
    await addNetns(router.netns);
    await plug(router.netns, router.linkAddress, 'p-router');
    await run('nsenter', [`--net=/run/netns/${router.netns}`, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    for (const [i, name] of routed.entries()) {
      const netns = `k8ts-pn-${tag}-${name}`;
      const address = `10.78.0.${i + 2}`;
      await addNetns(netns);
      await ip('-n', netns, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', `r-${name}`.slice(0, 15), 'netns', router.netns);
      await ip('-n', router.netns, 'link', 'set', `r-${name}`.slice(0, 15), 'up');
      if (i === 0) await ip('-n', router.netns, 'addr', 'add', `${router.routedAddress}/24`, 'dev', `r-${name}`.slice(0, 15));
      await ip('-n', netns, 'addr', 'add', `${address}/24`, 'dev', 'eth0');
      await ip('-n', netns, 'link', 'set', 'eth0', 'up');
      await ip('-n', netns, 'route', 'add', 'default', 'via', router.routedAddress);
      machines.push({ name, netns, address });
    }
    // The machines on the link reach the routed subnet through the router.
    for (const m of machines.filter((x) => onLink.includes(x.name))) await ip('-n', m.netns, 'route', 'add', '10.78.0.0/24', 'via', router.linkAddress);
  } catch (e) {
    await remove();
    throw e;
  }
  return { machines, router, remove };
}

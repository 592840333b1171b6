/**
 * The node's pod bridge (k8ts0) carries exactly one IPv4 address: its
 * podCIDR's gateway. Creating it before the first pod gives the node its
 * route to the local pods at once; re-addressing it when the podCIDR changes
 * is the fix for the seed's rejoined node, whose cni0 kept 10.244.1.1 after
 * its podCIDR became 10.244.4.0/24 (issue #21).
 */
import { cniBridge } from './cni-config.js';
import { gatewayOf, type IPv4CIDR } from './cidr.js';
import { ignoreAbsent, ipJSON, type CommandRunner } from './commands.js';

interface AddrInfo { family: string; local: string; prefixlen: number }
interface LinkAddrs { ifname: string; operstate?: string; addr_info?: AddrInfo[] }

/** Ensures k8ts0 exists, is up and has only cidr's gateway; returns the addresses it removed ("10.244.1.1/24"). */
export async function ensureBridge(r: CommandRunner, cidr: IPv4CIDR): Promise<string[]> {
  let links = await ipJSON<LinkAddrs>(r, ['addr', 'show', 'dev', cniBridge]).catch(() => []);
  if (links.length === 0) {
    await r.run('ip', ['link', 'add', cniBridge, 'type', 'bridge']);
    links = await ipJSON<LinkAddrs>(r, ['addr', 'show', 'dev', cniBridge]);
  }
  const want = `${gatewayOf(cidr)}/${cidr.prefix}`;
  const removed: string[] = [];
  let present = false;
  for (const a of links[0]?.addr_info ?? []) {
    if (a.family !== 'inet') continue;
    const have = `${a.local}/${a.prefixlen}`;
    if (have === want) { present = true; continue; }
    await r.run('ip', ['addr', 'del', have, 'dev', cniBridge]);
    removed.push(have);
  }
  if (!present) await r.run('ip', ['addr', 'add', want, 'dev', cniBridge]);
  await r.run('ip', ['link', 'set', cniBridge, 'up']);
  return removed;
}

export const deleteBridge = (r: CommandRunner) => ignoreAbsent(r.run('ip', ['link', 'del', cniBridge]));

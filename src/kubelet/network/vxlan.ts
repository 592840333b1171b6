/**
 * The VXLAN device of the overlay backend, flannel's vxlan backend on the
 * wire: VNI 1, UDP port 8472 (the Linux kernel's historical default, which
 * flannel keeps), no learning (every remote endpoint is programmed from the
 * Node objects), the device's address the node's podCIDR network address as
 * a /32, its MTU the parent's minus the 50 bytes of VXLAN encapsulation.
 */
import { ignoreAbsent, ipJSON, type CommandRunner } from './commands.js';

export const vxlanDevice = 'k8ts.1';
export const vxlanVNI = 1;
export const vxlanPort = 8472;
const encapsulationBytes = 50;

interface Link {
  ifname: string; address?: string; mtu?: number;
  linkinfo?: { info_kind?: string; info_data?: { id?: number; local?: string; port?: number } };
  addr_info?: { family: string; local: string; prefixlen: number }[];
}

/** The interface that holds `ip` (the node's InternalIP), the parent of the VXLAN device. */
export async function deviceWithAddress(r: CommandRunner, ip: string): Promise<Link | undefined> {
  const links = await ipJSON<Link>(r, ['addr', 'show']);
  return links.find((l) => (l.addr_info ?? []).some((a) => a.family === 'inet' && a.local === ip));
}

/** Ensures the device exists with this local address and VTEP address; returns its MAC (the one peers program) and MTU. */
export async function ensureVXLAN(r: CommandRunner, localIP: string, vtepAddress: string): Promise<{ mac: string; mtu: number }> {
  const parent = await deviceWithAddress(r, localIP);
  if (!parent) throw new Error(`no interface has the node address ${localIP}: cannot create the VXLAN device`);
  let link: Link | undefined = (await ipJSON<Link>(r, ['-d', 'addr', 'show', 'dev', vxlanDevice]).catch(() => []))[0];
  const d = link?.linkinfo?.info_data;
  if (link && (link.linkinfo?.info_kind !== 'vxlan' || d?.id !== vxlanVNI || d?.local !== localIP || d?.port !== vxlanPort)) {
    await r.run('ip', ['link', 'del', vxlanDevice]);
    link = undefined;
  }
  if (!link) {
    await r.run('ip', ['link', 'add', vxlanDevice, 'type', 'vxlan', 'id', String(vxlanVNI), 'local', localIP, 'dev', parent.ifname,
      'dstport', String(vxlanPort), 'nolearning']);
    await r.run('ip', ['link', 'set', vxlanDevice, 'mtu', String((parent.mtu ?? 1500) - encapsulationBytes)]);
    [link] = await ipJSON<Link>(r, ['-d', 'addr', 'show', 'dev', vxlanDevice]);
  }
  const want = `${vtepAddress}/32`;
  let present = false;
  for (const a of link?.addr_info ?? []) {
    if (a.family !== 'inet') continue;
    if (`${a.local}/${a.prefixlen}` === want) present = true;
    else await r.run('ip', ['addr', 'del', `${a.local}/${a.prefixlen}`, 'dev', vxlanDevice]);
  }
  if (!present) await r.run('ip', ['addr', 'add', want, 'dev', vxlanDevice]);
  await r.run('ip', ['link', 'set', vxlanDevice, 'up']);
  if (!link?.address) throw new Error(`the VXLAN device ${vxlanDevice} has no MAC address`);
  return { mac: link.address, mtu: link.mtu ?? (parent.mtu ?? 1500) - encapsulationBytes };
}

export const deleteVXLAN = (r: CommandRunner) => ignoreAbsent(r.run('ip', ['link', 'del', vxlanDevice]));

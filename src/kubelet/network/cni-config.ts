/**
 * The node's CNI network (what a CNI plugin's daemon writes into the
 * runtime's conf dir, as flannel writes 10-flannel.conflist): a bridge
 * (k8ts0) with host-local IPAM over the node's podCIDR, portmap for
 * hostPort, loopback. The runtime (containerd's CRI plugin) watches the conf
 * dir and loads a rewritten file for the next sandbox.
 *
 * host-local keeps one file per allocated address under
 * <dataDir>/<network name>/; when the podCIDR changes, the files of addresses
 * outside the new range (and its last_reserved_ip cursor) are removed so no
 * stale reservation survives (issue #21: the seed's rejoined node).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cidrContains, parseIPv4, type IPv4CIDR } from './cidr.js';

export const cniNetworkName = 'k8ts';
export const cniBridge = 'k8ts0';
export const cniConflistName = '10-k8ts.conflist';

/**
 * The conflist of a node whose pods take addresses from podSubnet. `mtu`: the pods' interface MTU, the VXLAN
 * device's when pods may talk over the overlay (flannel hands its subnet.env MTU to the bridge plugin the same way),
 * so a full-size segment is not cut down by path MTU discovery at the overlay.
 */
export function cniConflist(podSubnet: string, ipamDataDir: string, mtu?: number): string {
  return JSON.stringify({
    cniVersion: '0.4.0', name: cniNetworkName,
    plugins: [
      {
        // forceAddress: a bridge left with another subnet's address is re-addressed, not refused
        // (the bridge plugin otherwise fails with `"k8ts0" already has an IP address different from ...`).
        type: 'bridge', bridge: cniBridge, isGateway: true, ipMasq: false, hairpinMode: true, forceAddress: true, ...(mtu ? { mtu } : {}),
        ipam: { type: 'host-local', ranges: [[{ subnet: podSubnet }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: ipamDataDir },
      },
      { type: 'portmap', capabilities: { portMappings: true }, snat: true },
      { type: 'loopback' },
    ],
  }, null, 2);
}

/** The subnet of the conflist in confDir, if there is one this module wrote. */
export function configuredSubnet(confDir: string): string | undefined {
  try {
    const conf = JSON.parse(readFileSync(join(confDir, cniConflistName), 'utf8')) as { plugins?: { ipam?: { ranges?: { subnet?: string }[][] } }[] };
    return conf.plugins?.[0]?.ipam?.ranges?.[0]?.[0]?.subnet;
  } catch {
    return undefined;
  }
}

/** Writes the conflist (through a rename, so the runtime never loads half a file); true when it changed. */
export function writeCNIConfig(confDir: string, podSubnet: string, ipamDataDir: string, mtu?: number): boolean {
  const text = cniConflist(podSubnet, ipamDataDir, mtu);
  const path = join(confDir, cniConflistName);
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return false;
  mkdirSync(confDir, { recursive: true });
  const tmp = join(confDir, `.${cniConflistName}.tmp`);
  writeFileSync(tmp, text, { mode: 0o644 });
  renameSync(tmp, path);
  return true;
}

export function removeCNIConfig(confDir: string): boolean {
  const path = join(confDir, cniConflistName);
  if (!existsSync(path)) return false;
  rmSync(path, { force: true });
  return true;
}

/** Removes host-local's reservations outside `cidr` and its cursor; returns the addresses released. */
export function removeStaleAllocations(ipamDataDir: string, cidr: IPv4CIDR): string[] {
  const dir = join(ipamDataDir, cniNetworkName);
  let entries: string[];
  try { entries = readdirSync(dir); } catch { return []; }
  const removed: string[] = [];
  for (const e of entries) {
    const ip = parseIPv4(e);
    if (e.startsWith('last_reserved_ip') || (ip !== undefined && !cidrContains(cidr, ip))) {
      rmSync(join(dir, e), { force: true });
      if (ip !== undefined) removed.push(e);
    }
  }
  return removed;
}

/**
 * Programs a RoutePlan into the kernel and removes what the plan no longer
 * holds. Every route the pod network adds carries its own protocol number
 * (`proto 77`), so the routes it owns are listed and removed by that mark
 * alone, never an operator's. Neighbour and fdb entries live on the VXLAN
 * device, which only the pod network uses.
 */
import { ignoreAbsent, ipJSON, type CommandRunner } from './commands.js';
import type { PeerRoute } from './backend.js';
import { vxlanDevice } from './vxlan.js';

export const routeProtocol = '77';

/** Whether the kernel reaches `ip` without a gateway (a directly connected subnet). */
export async function isDirectlyConnected(r: CommandRunner, ip: string): Promise<boolean> {
  const [route] = await ipJSON<{ gateway?: string; type?: string }>(r, ['route', 'get', ip]).catch(() => []);
  return !!route && !route.gateway && (route.type ?? 'unicast') === 'unicast';
}

export async function applyPeerRoutes(r: CommandRunner, routes: PeerRoute[], vxlanPresent: boolean): Promise<void> {
  for (const rt of routes) {
    if (rt.kind === 'host-gw') {
      await r.run('ip', ['route', 'replace', rt.dst, 'via', rt.via, 'proto', routeProtocol]);
      continue;
    }
    await r.run('ip', ['neigh', 'replace', rt.vtep, 'lladdr', rt.mac, 'dev', vxlanDevice, 'nud', 'permanent']);
    await r.run('bridge', ['fdb', 'replace', rt.mac, 'dev', vxlanDevice, 'dst', rt.nodeIP, 'self', 'permanent']);
    await r.run('ip', ['route', 'replace', rt.dst, 'via', rt.vtep, 'dev', vxlanDevice, 'onlink', 'proto', routeProtocol]);
  }
  const wanted = new Set(routes.map((rt) => rt.dst));
  for (const have of await ipJSON<{ dst: string }>(r, ['route', 'show', 'proto', routeProtocol])) {
    if (!wanted.has(have.dst)) await ignoreAbsent(r.run('ip', ['route', 'del', have.dst, 'proto', routeProtocol]));
  }
  if (!vxlanPresent) return;
  const overlay = routes.filter((rt): rt is Extract<PeerRoute, { kind: 'vxlan' }> => rt.kind === 'vxlan');
  const vteps = new Set(overlay.map((rt) => rt.vtep));
  for (const n of await ipJSON<{ dst: string }>(r, ['neigh', 'show', 'dev', vxlanDevice])) {
    if (!vteps.has(n.dst)) await ignoreAbsent(r.run('ip', ['neigh', 'del', n.dst, 'dev', vxlanDevice]));
  }
  const macs = new Set(overlay.map((rt) => `${rt.mac} ${rt.nodeIP}`));
  for (const f of await ipJSON<{ mac: string; dst?: string }>(r, ['fdb', 'show', 'dev', vxlanDevice], 'bridge')) {
    if (!f.dst || macs.has(`${f.mac} ${f.dst}`)) continue;
    await ignoreAbsent(r.run('bridge', ['fdb', 'del', f.mac, 'dev', vxlanDevice, 'dst', f.dst, 'self']));
  }
}

/** Removes every route the pod network added (reset). */
export const flushPeerRoutes = (r: CommandRunner) => ignoreAbsent(r.run('ip', ['route', 'flush', 'proto', routeProtocol]));

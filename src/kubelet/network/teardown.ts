/**
 * `reset`'s removal of what the pod network set up on the node: the bridge
 * (with it the pods' veths), the VXLAN device (with its neighbour and fdb
 * entries and the routes through it), the host-gw routes (`proto 77`), the
 * CNI conflist and host-local's reservations, and the `ip k8ts-podnet`
 * table. Each step is best effort and reported; absent parts are no error.
 */
import { rmSync } from 'node:fs';
import { deleteBridge } from './bridge.js';
import { removeCNIConfig } from './cni-config.js';
import type { CommandRunner } from './commands.js';
import { deleteMasquerade } from './masquerade.js';
import { flushPeerRoutes } from './routes.js';
import type { PodNetworkState } from './state.js';
import { deleteVXLAN } from './vxlan.js';

export async function teardownPodNetwork(r: CommandRunner, state: PodNetworkState | undefined): Promise<string[]> {
  const errors: string[] = [];
  const step = async (p: () => Promise<unknown> | unknown) => {
    try { await p(); } catch (e) { errors.push(e instanceof Error ? e.message : String(e)); }
  };
  await step(() => flushPeerRoutes(r));
  await step(() => deleteVXLAN(r));
  await step(() => deleteBridge(r));
  await step(() => deleteMasquerade(r));
  if (state) {
    await step(() => removeCNIConfig(state.cniConfDir));
    await step(() => rmSync(state.ipamDataDir, { recursive: true, force: true }));
  }
  return errors;
}

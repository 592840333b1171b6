/**
 * `k8ts agent --pod-network-backend host-gw|vxlan|auto`: the node agent runs
 * the pod network of its node (src/kubelet/network/) next to the kubelet.
 * "none" (the default) leaves the runtime's CNI configuration alone, as a
 * kubelet without a network add-on does. Only with the CRI runtime: the
 * process and simulated runtimes have no pod network of their own.
 */
import { join } from 'node:path';
import type { Clientset } from '../client/index.js';
import type { Logger } from '../util/log.js';
import {
  PodNetwork, execRunner, podNetworkBackends, runtimeCNIConfDir, writePodNetworkState, type PodNetworkBackend,
} from '../kubelet/network/index.js';

export const podNetworkFlagHelp = `      --pod-network-backend string          cri: run the node's pod network: pods take addresses from the Node's podCIDR and
                                            reach every other node's pods, by host-gw routes, a VXLAN overlay, or auto
                                            (host-gw where the peer shares a link, VXLAN elsewhere); "none" leaves the
                                            runtime's CNI configuration alone (default "none")`;

export function parsePodNetworkBackend(v: string | undefined): PodNetworkBackend | 'none' {
  const b = (v ?? 'none').trim();
  if (b === 'none' || (podNetworkBackends as readonly string[]).includes(b)) return b as PodNetworkBackend | 'none';
  throw new Error(`invalid value "${b}" for flag --pod-network-backend: must be one of none, ${podNetworkBackends.join(', ')}`);
}

export async function startPodNetwork(o: {
  backend: PodNetworkBackend; clients: Clientset; endpoint: string; rootDir: string; nodeName: string; nodeIP: string; logger: Logger;
}): Promise<PodNetwork> {
  const cniConfDir = await runtimeCNIConfDir(o.endpoint);
  const ipamDataDir = join(o.rootDir, 'pod-network', 'ipam');
  writePodNetworkState(o.rootDir, { cniConfDir, ipamDataDir });
  const net = new PodNetwork({ clients: o.clients, runner: execRunner, logger: o.logger }, {
    nodeName: o.nodeName, nodeIP: o.nodeIP, backend: o.backend, cniConfDir, ipamDataDir,
  });
  net.start();
  await net.waitForSync();
  o.logger.info('pod network running', { backend: o.backend, cniConfDir, ipamDataDir });
  return net;
}

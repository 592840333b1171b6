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
  PodNetwork, configuredSubnet, execRunner, podNetworkBackends, readPodNetworkState, removeCNIConfig, writePodNetworkState, type PodNetworkBackend,
} from '../kubelet/network/index.js';

export { podNetworkFlagHelp } from './agent-flags.js';

export function parsePodNetworkBackend(v: string | undefined): PodNetworkBackend | 'none' {
  const b = (v ?? 'none').trim();
  if (b === 'none' || (podNetworkBackends as readonly string[]).includes(b)) return b as PodNetworkBackend | 'none';
  throw new Error(`invalid value "${b}" for flag --pod-network-backend: must be one of none, ${podNetworkBackends.join(', ')}`);
}

/**
 * Starts the pod network without waiting for the API server: on a control-plane node the agent itself starts the
 * API server (a static pod). A CNI network this pod network did not write for the podCIDR it recorded (the runtime's
 * own default, or one left from before a reset) is removed first, so no sandbox takes an address from it.
 */
export function startPodNetwork(o: {
  backend: PodNetworkBackend; clients: Clientset; cniConfDir: string; rootDir: string; nodeName: string; nodeIP: string; logger: Logger;
}): PodNetwork {
  const { cniConfDir } = o;
  const ipamDataDir = join(o.rootDir, 'pod-network', 'ipam');
  const previous = readPodNetworkState(o.rootDir);
  const subnet = configuredSubnet(cniConfDir);
  if (subnet && subnet !== previous?.podCIDR) {
    removeCNIConfig(cniConfDir);
    o.logger.info('removed a CNI network the pod network did not write for this node', { cniConfDir, subnet });
  }
  writePodNetworkState(o.rootDir, { cniConfDir, ipamDataDir, ...(previous?.podCIDR === subnet && subnet ? { podCIDR: subnet } : {}) });
  const net = new PodNetwork({ clients: o.clients, runner: execRunner, logger: o.logger }, {
    nodeName: o.nodeName, nodeIP: o.nodeIP, backend: o.backend, cniConfDir, ipamDataDir,
    onConfigured: (podCIDR) => writePodNetworkState(o.rootDir, { cniConfDir, ipamDataDir, podCIDR }),
  });
  net.start();
  o.logger.info('pod network running', { backend: o.backend, cniConfDir, ipamDataDir });
  return net;
}

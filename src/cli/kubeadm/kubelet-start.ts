/**
 * The kubelet-start phase shared by init and join: the cluster's
 * KubeletConfiguration written to PREFIX/var/lib/kubelet/config.yaml and the
 * agent's flags to PREFIX/var/lib/kubelet/kubeadm-flags.env (as kubeadm
 * writes KUBELET_KUBEADM_ARGS there), then the agent started as a service.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeLayout } from './layout.js';
import { KUBELET_SERVICE, startService, type ServiceHandle } from './service.js';
import { agentNodeFlags } from '../agent-node-flags.js';
import { kubeletConfigurationYAML, type KubeletConfiguration } from '../kubelet-config-file.js';

export type AgentRuntime = 'simulated' | 'cri' | 'process';

export interface AgentConfig {
  layout: NodeLayout;
  nodeName: string;
  nodeIP: string;
  kubeletPort: number;
  runtime: AgentRuntime;
  criSocket?: string;
  /** join: the bootstrap kubeconfig the agent TLS-bootstraps with. */
  bootstrap?: boolean;
  /** Run the static pods of the manifest directory (every kubeadm node: init and join). */
  staticPods?: boolean;
  /** init with a CRI socket: the static pods (the control plane) stay host processes while API pods run on the CRI. */
  staticPodRuntime?: AgentRuntime;
  /** KubeletConfiguration clusterDNS: the kube-dns Service's address, the service CIDR's tenth. */
  clusterDNS?: string;
  /** The cluster's KubeletConfiguration (init's, or the kubelet-config ConfigMap's at join): config.yaml, --config. */
  kubeletConfiguration?: KubeletConfiguration;
  /** The built-in pod network's backend (init's --pod-network-backend, recorded for joining nodes); "none" or absent: none. */
  podNetworkBackend?: string;
}

export function agentArgs(c: AgentConfig): string[] {
  const l = c.layout;
  return [
    'agent', `--kubeconfig=${l.kubeconfig('kubelet.conf')}`,
    ...(c.bootstrap ? [`--bootstrap-kubeconfig=${l.kubeconfig('bootstrap-kubelet.conf')}`] : []),
    `--node-name=${c.nodeName}`, `--node-ip=${c.nodeIP}`, `--address=${c.nodeIP}`, `--kubelet-port=${c.kubeletPort}`,
    `--runtime=${c.runtime}`, `--root-dir=${l.kubeletDir}`, `--pod-logs-dir=${l.podLogsDir}`,
    ...(c.criSocket ? [`--container-runtime-endpoint=${c.criSocket}`] : []),
    ...(c.staticPods ? [`--pod-manifest-path=${l.manifestsDir}`, '--file-check-frequency=1s'] : []),
    ...(c.staticPodRuntime ? [`--static-pod-runtime=${c.staticPodRuntime}`] : []),
    ...(c.kubeletConfiguration ? [`--config=${kubeletConfigPath(l)}`] : []),
    ...(c.clusterDNS ? [`--cluster-dns=${c.clusterDNS}`] : []),
    ...(c.podNetworkBackend && c.podNetworkBackend !== 'none' ? [`--pod-network-backend=${c.podNetworkBackend}`] : []),
  ];
}

/** kubeadm's /var/lib/kubelet/config.yaml. */
export const kubeletConfigPath = (l: NodeLayout) => join(l.kubeletDir, 'config.yaml');

export function kubeletStartPhase(c: AgentConfig, log: (line: string) => void): ServiceHandle {
  const args = agentArgs(c);
  mkdirSync(c.layout.kubeletDir, { recursive: true, mode: 0o700 });
  if (c.kubeletConfiguration) {
    log(`[kubelet-start] Writing kubelet configuration to file "${kubeletConfigPath(c.layout)}"`);
    writeFileSync(kubeletConfigPath(c.layout), kubeletConfigurationYAML(c.kubeletConfiguration), { mode: 0o644 });
  }
  const envFile = join(c.layout.kubeletDir, 'kubeadm-flags.env');
  log(`[kubelet-start] Writing kubelet environment file with flags to file "${envFile}"`);
  writeFileSync(envFile, `KUBELET_KUBEADM_ARGS="${args.slice(1).join(' ')}"\n`, { mode: 0o644 });
  log('[kubelet-start] Starting the kubelet');
  return startService(c.layout, KUBELET_SERVICE, args, agentNodeFlags(c.runtime));
}

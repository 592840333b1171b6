/**
 * What the pod network set up on this node, recorded in the kubelet's root
 * dir so `reset` can remove it after the agent has stopped (kubeadm reset
 * asks the CNI plugin's files the same way: it cannot ask a stopped daemon).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PodNetworkState {
  cniConfDir: string;
  ipamDataDir: string;
  /** The podCIDR the conflist was last written for. */
  podCIDR?: string;
}

export const podNetworkStateFile = (rootDir: string) => join(rootDir, 'pod-network.json');

export function writePodNetworkState(rootDir: string, s: PodNetworkState): void {
  mkdirSync(rootDir, { recursive: true });
  writeFileSync(podNetworkStateFile(rootDir), JSON.stringify(s) + '\n', { mode: 0o644 });
}

export function readPodNetworkState(rootDir: string): PodNetworkState | undefined {
  try {
    const s = JSON.parse(readFileSync(podNetworkStateFile(rootDir), 'utf8')) as Partial<PodNetworkState>;
    if (typeof s.cniConfDir !== 'string' || typeof s.ipamDataDir !== 'string') return undefined;
    return { cniConfDir: s.cniConfDir, ipamDataDir: s.ipamDataDir, ...(typeof s.podCIDR === 'string' ? { podCIDR: s.podCIDR } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Pods of one node share a bridge, and frames between them are bridged, not
 * routed: netfilter's inet hooks see them only with br_netfilter's
 * `net.bridge.bridge-nf-call-iptables=1`. kubeadm's preflight requires that
 * setting (and kube-proxy needs it for Service traffic between pods of one
 * bridge); the agent sets it, as kube-router does, and says so when it cannot.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const path = '/proc/sys/net/bridge/bridge-nf-call-iptables';

/** 'on' when the setting is (now) 1; otherwise why not. */
export function ensureBridgeNetfilter(): 'on' | string {
  try {
    if (readFileSync(path, 'utf8').trim() === '1') return 'on';
    writeFileSync(path, '1');
    return 'on';
  } catch (e) {
    return `${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message} (load br_netfilter: pods on one bridge are not policed)`;
  }
}

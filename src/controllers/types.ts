/**
 * What every controller gets and must provide. Controllers talk to the API
 * only through `client`, read through shared informers, and are level
 * triggered: a sync recomputes everything from the caches.
 */
import type { Clientset, InformerSource, EventRecorder } from '../client/index.js';
import type { Logger } from '../util/log.js';
import type { Clock } from '../util/clock.js';

export interface ControllerConfig {
  /** node-monitor-grace-period: heartbeat silence before a node is Unknown (upstream 50 s). */
  nodeMonitorGracePeriodMs: number;
  /** node-startup-grace-period (upstream 60 s). */
  nodeStartupGracePeriodMs: number;
  /** How often the node lifecycle controller checks heartbeats (upstream 5 s). */
  nodeMonitorPeriodMs: number;
  /** terminated-pod-gc-threshold (upstream 12500). */
  terminatedPodGCThreshold: number;
  /** Concurrent syncs per controller. */
  workers: number;
  /** Pod GC: how often orphaned pods are looked for (upstream 20 s, not configurable there). */
  podGCPeriodMs: number;
  /** Pod GC: how long a node must stay missing before its pods are deleted (upstream 40 s). */
  podGCQuarantineMs: number;
  /** The cluster CA bundle (PEM) the root CA publisher puts in every namespace; upstream's --root-ca-file, else the client's CA. */
  rootCA?: string;
  /** serviceaccount-token: the key that signs Secret-based tokens (--service-account-private-key-file); without one the controller does not start. */
  serviceAccountPrivateKeyFile?: string;
  /** csrsigning: the CA that signs approved CSRs (--cluster-signing-cert-file / --cluster-signing-key-file). */
  clusterSigningCertFile?: string;
  clusterSigningKeyFile?: string;
  /** csrsigning: --cluster-signing-duration, the longest certificate it issues (upstream 8760h). */
  clusterSigningDurationMs: number;
  /** csrcleaner: how often every CSR is checked for deletion (upstream 1 h, not configurable there). */
  csrCleanerPollingIntervalMs: number;
  /** nodeipam: --allocate-node-cidrs (upstream default false; kubeadm sets it with --pod-network-cidr). */
  allocateNodeCIDRs: boolean;
  /** nodeipam: --cluster-cidr, comma-separated (one per IP family). */
  clusterCIDRs: string[];
  /** nodeipam: --node-cidr-mask-size(-ipv4|-ipv6), upstream 24 and 64. */
  nodeCIDRMaskSizeIPv4: number;
  nodeCIDRMaskSizeIPv6: number;
  /**
   * Create the `local-path` default StorageClass when absent (k3s and kind
   * ship one; upstream kube-controller-manager creates none, so upstream's
   * own suites start the server with --default-storage-class=false).
   */
  defaultStorageClass?: boolean;
}

export const defaultControllerConfig: ControllerConfig = {
  nodeMonitorGracePeriodMs: 50_000,
  nodeStartupGracePeriodMs: 60_000,
  nodeMonitorPeriodMs: 5_000,
  terminatedPodGCThreshold: 12_500,
  workers: 4,
  podGCPeriodMs: 20_000,
  podGCQuarantineMs: 40_000,
  clusterSigningDurationMs: 8760 * 3600_000,
  csrCleanerPollingIntervalMs: 3600_000,
  allocateNodeCIDRs: false,
  clusterCIDRs: [],
  nodeCIDRMaskSizeIPv4: 24,
  nodeCIDRMaskSizeIPv6: 64,
};

export interface ControllerContext {
  clients: Clientset;
  informers: InformerSource;
  recorder(component: string): EventRecorder;
  logger: Logger;
  clock: Clock;
  config: ControllerConfig;
}

export interface Controller {
  readonly name: string;
  /** Called after the informers it registered have synced. */
  run(): void;
  stop(): void;
}

/** Each controller module exports one of these; it registers informers in the constructor. */
export type ControllerFactory = (ctx: ControllerContext) => Controller;

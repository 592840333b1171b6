/**
 * init's etcd phase: the static pod manifest for local (stacked) etcd, as
 * kubeadm's GetEtcdPodSpec writes it (cmd/kubeadm/app/phases/etcd/local.go):
 * hostNetwork, component=etcd, tier=control-plane, the advertise-client-urls
 * annotation, kubeadm's command line and probes on the metrics listener, and
 * hostPath volumes for the data directory and etcd's PKI.
 *
 * The container runs Debian's /usr/bin/etcd (3.4) through the kubelet's
 * host-process runtime, as the other control-plane pods run k8ts: the image
 * field only names what runs. Departure: etcd 3.4 has no /livez and /readyz
 * (3.5.11+), so the probes use its /health as kubeadm did before 1.31.
 */
import { join } from 'node:path';
import type { Pod, Probe } from 'kubernetes-types/core/v1.js';
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { writeFileAtomic } from '../../pki/index.js';
import type { NodeLayout } from './layout.js';

export const ETCD_IMAGE = 'etcd';

export interface LocalEtcdConfig {
  layout: NodeLayout;
  nodeName: string;
  advertiseAddress: string;
  /** kubeadm's fixed 2379, 2380 and 2381; k8ts flags so several nodes can share one host. */
  clientPort: number;
  peerPort: number;
  metricsPort: number;
  /** NAME=PEER_URL,... of every member; a first control plane names only itself. */
  initialCluster?: string;
  /** "existing" on a joining control plane, whose member was added before it starts. */
  initialClusterState?: 'new' | 'existing';
}

const hostPort = (address: string, port: number) => `${address.includes(':') ? `[${address}]` : address}:${port}`;

export const etcdClientURL = (address: string, port: number) => `https://${hostPort(address, port)}`;
export const etcdPeerURL = (address: string, port: number) => `https://${hostPort(address, port)}`;
export const etcdManifestPath = (layout: NodeLayout) => join(layout.manifestsDir, 'etcd.yaml');

/** kubeadm's etcd command line (local.go getEtcdCommand), flags sorted as kubeadm sorts them. */
export function etcdCommand(c: LocalEtcdConfig): string[] {
  const pki = join(c.layout.certDir, 'etcd');
  const peerURL = etcdPeerURL(c.advertiseAddress, c.peerPort);
  const flags: Record<string, string> = {
    'advertise-client-urls': etcdClientURL(c.advertiseAddress, c.clientPort),
    'cert-file': join(pki, 'server.crt'),
    'client-cert-auth': 'true',
    'data-dir': c.layout.etcdDataDir,
    'experimental-initial-corrupt-check': 'true',
    'experimental-watch-progress-notify-interval': '5s',
    'initial-advertise-peer-urls': peerURL,
    'initial-cluster': c.initialCluster ?? `${c.nodeName}=${peerURL}`,
    ...(c.initialClusterState === 'existing' ? { 'initial-cluster-state': 'existing' } : {}),
    'key-file': join(pki, 'server.key'),
    'listen-client-urls': [...new Set([etcdClientURL('127.0.0.1', c.clientPort), etcdClientURL(c.advertiseAddress, c.clientPort)])].join(','),
    'listen-metrics-urls': `http://127.0.0.1:${c.metricsPort}`,
    'listen-peer-urls': peerURL,
    name: c.nodeName,
    'peer-cert-file': join(pki, 'peer.crt'),
    'peer-client-cert-auth': 'true',
    'peer-key-file': join(pki, 'peer.key'),
    'peer-trusted-ca-file': join(pki, 'ca.crt'),
    'snapshot-count': '10000',
    'trusted-ca-file': join(pki, 'ca.crt'),
  };
  return ['etcd', ...Object.keys(flags).sort().map((k) => `--${k}=${flags[k]}`)];
}

const metricsProbe = (c: LocalEtcdConfig, path: string, p: Partial<Probe>): Probe =>
  ({ httpGet: { host: '127.0.0.1', port: c.metricsPort, path, scheme: 'HTTP' }, timeoutSeconds: 15, ...p });

export function etcdPod(c: LocalEtcdConfig): Pod {
  const certs = join(c.layout.certDir, 'etcd');
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: 'etcd', namespace: 'kube-system', labels: { component: 'etcd', tier: 'control-plane' },
      annotations: { 'kubeadm.kubernetes.io/etcd.advertise-client-urls': etcdClientURL(c.advertiseAddress, c.clientPort) },
    },
    spec: {
      containers: [{
        name: 'etcd', image: ETCD_IMAGE, imagePullPolicy: 'IfNotPresent', command: etcdCommand(c),
        livenessProbe: metricsProbe(c, '/health', { failureThreshold: 8, initialDelaySeconds: 10, periodSeconds: 10 }),
        readinessProbe: metricsProbe(c, '/health', { failureThreshold: 3, periodSeconds: 1 }),
        startupProbe: metricsProbe(c, '/health', { failureThreshold: 24, initialDelaySeconds: 10, periodSeconds: 10 }),
        resources: { requests: { cpu: '100m', memory: '100Mi' } },
        volumeMounts: [{ name: 'etcd-data', mountPath: c.layout.etcdDataDir }, { name: 'etcd-certs', mountPath: certs }],
      }],
      hostNetwork: true,
      priority: 2000001000,
      priorityClassName: 'system-node-critical',
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      volumes: [
        { name: 'etcd-certs', hostPath: { path: certs, type: 'DirectoryOrCreate' } },
        { name: 'etcd-data', hostPath: { path: c.layout.etcdDataDir, type: 'DirectoryOrCreate' } },
      ],
    },
  };
}

/** Writes etcd.yaml with kubeadm's line. */
export async function etcdPhase(c: LocalEtcdConfig, log: (line: string) => void): Promise<Pod> {
  const pod = etcdPod(c);
  log(`[etcd] Creating static Pod manifest for local etcd in "${c.layout.manifestsDir}"`);
  await writeFileAtomic(etcdManifestPath(c.layout), stringify(pod), 0o600);
  return pod;
}

/**
 * The data directory of this node's local etcd, read from its manifest as kubeadm reset's
 * getEtcdDataDir does; undefined when the node runs no local etcd.
 */
export function localEtcdDataDir(layout: NodeLayout): string | undefined {
  return etcdManifestFlag(layout, 'data-dir');
}

/** This node's etcd member's peer URL, from its manifest (what reset removes from the cluster). */
export function localEtcdPeerURL(layout: NodeLayout): string | undefined {
  return etcdManifestFlag(layout, 'initial-advertise-peer-urls')?.split(',')[0];
}

/** This node's etcd member's advertised client URL, from its manifest. */
export function localEtcdClientURL(layout: NodeLayout): string | undefined {
  return etcdManifestFlag(layout, 'advertise-client-urls')?.split(',')[0];
}

function etcdManifestFlag(layout: NodeLayout, name: string): string | undefined {
  let pod: Pod;
  try { pod = parse(readFileSync(etcdManifestPath(layout), 'utf8')) as Pod; } catch { return undefined; }
  const flag = pod.spec?.containers?.[0]?.command?.find((a) => a.startsWith(`--${name}=`));
  return flag ? flag.slice(name.length + 3) : undefined;
}

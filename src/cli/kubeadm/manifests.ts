/**
 * init's control-plane phase: kubeadm's static pod manifests
 * (cmd/kubeadm/app/phases/controlplane/manifests.go) for the k8ts binaries.
 * Each pod is hostNetwork, labelled component=<name>, tier=control-plane,
 * system-node-critical, with liveness, readiness and startup probes on the
 * component's health endpoint. Its one container runs this k8ts build with
 * node: the kubelet's host-process runtime runs it.
 *
 * Departure: the controller manager and scheduler serve /healthz over plain
 * HTTP on 127.0.0.1 (k8ts's metrics server), not HTTPS as upstream's do.
 */
import { join } from 'node:path';
import { cliEntry } from '../../util/package-root.js';
import type { Container, Pod, Probe, Volume, VolumeMount } from 'kubernetes-types/core/v1.js';
import { stringify } from 'yaml';
import { writeFileAtomic } from '../../pki/index.js';
import type { NodeLayout } from './layout.js';

/** The image field of a host-process container; the command names what runs. */
export const HOST_PROCESS_IMAGE = 'k8ts';

/** dist/src/cli/main.js of this build: the control-plane pods run the same k8ts. */
export const k8tsMain = (): string => cliEntry();

export interface ControlPlaneConfig {
  layout: NodeLayout;
  advertiseAddress: string;
  bindPort: number;
  controllerManagerPort: number;
  schedulerPort: number;
  /** --pod-network-cidr: the controller manager then gives every node a pod CIDR from it, as kubeadm sets it up. */
  podSubnet?: string;
  /** --service-cidr: the API server allocates cluster IPs from it (kubeadm's networking.serviceSubnet). */
  serviceSubnet?: string;
  /** Where the API server stores: local or external etcd (kubeadm's --etcd-* flags); absent: SQLite in --data-dir. */
  etcd?: APIServerEtcd;
}

export interface APIServerEtcd { servers: string[]; caFile?: string; certFile?: string; keyFile?: string }

/** kube-apiserver's etcd flags as kubeadm writes them (controlplane/manifests.go getAPIServerCommand). */
function etcdFlags(e: APIServerEtcd | undefined): string[] {
  if (!e) return [];
  return [
    ...(e.caFile ? [`--etcd-cafile=${e.caFile}`] : []), ...(e.certFile ? [`--etcd-certfile=${e.certFile}`] : []),
    ...(e.keyFile ? [`--etcd-keyfile=${e.keyFile}`] : []), `--etcd-servers=${e.servers.join(',')}`,
  ];
}

export const CONTROL_PLANE_COMPONENTS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
export type ControlPlaneComponent = typeof CONTROL_PLANE_COMPONENTS[number];

const probe = (host: string, port: number, path: string, scheme: 'HTTP' | 'HTTPS', p: Partial<Probe>): Probe => ({
  httpGet: { host, port, path, scheme }, timeoutSeconds: 15, ...p,
});

function hostPathMount(name: string, path: string, readOnly = true): { volume: Volume; mount: VolumeMount } {
  return {
    volume: { name, hostPath: { path, type: path.endsWith('.conf') ? 'FileOrCreate' : 'DirectoryOrCreate' } },
    mount: { name, mountPath: path, readOnly },
  };
}

function staticPod(component: ControlPlaneComponent, command: string[], probes: Pick<Container, 'livenessProbe' | 'readinessProbe' | 'startupProbe'>,
  mounts: Array<{ volume: Volume; mount: VolumeMount }>, cpu: string, annotations?: Record<string, string>): Pod {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: component, namespace: 'kube-system', labels: { component, tier: 'control-plane' }, ...(annotations ? { annotations } : {}) },
    spec: {
      containers: [{
        name: component, image: HOST_PROCESS_IMAGE, imagePullPolicy: 'IfNotPresent',
        command: [process.execPath, k8tsMain(), ...command],
        ...probes,
        resources: { requests: { cpu } },
        volumeMounts: mounts.map((m) => m.mount),
      }],
      hostNetwork: true,
      priorityClassName: 'system-node-critical',
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      volumes: mounts.map((m) => m.volume),
    },
  };
}

export function controlPlanePods(c: ControlPlaneConfig): Record<ControlPlaneComponent, Pod> {
  const l = c.layout;
  const certs = hostPathMount('k8s-certs', l.certDir);
  const data = hostPathMount('k8ts-data', l.dataDir, false);
  const apiserverProbe = (path: string, p: Partial<Probe>) => probe(c.advertiseAddress, c.bindPort, path, 'HTTPS', p);
  const healthz = (port: number, p: Partial<Probe>) => probe('127.0.0.1', port, '/healthz', 'HTTP', p);
  const kubeconfigOf = (file: 'controller-manager.conf' | 'scheduler.conf') => hostPathMount('kubeconfig', l.kubeconfig(file));
  return {
    'kube-apiserver': staticPod('kube-apiserver', [
      'server', `--data-dir=${l.dataDir}`, `--cert-dir=${l.certDir}`, `--advertise-address=${c.advertiseAddress}`,
      '--bind=0.0.0.0', `--port=${c.bindPort}`, '--controllers=none',
      ...(c.serviceSubnet ? [`--service-cluster-ip-range=${c.serviceSubnet}`] : []),
      ...etcdFlags(c.etcd),
    ], {
      livenessProbe: apiserverProbe('/livez', { failureThreshold: 8, initialDelaySeconds: 10, periodSeconds: 10 }),
      readinessProbe: apiserverProbe('/readyz', { failureThreshold: 3, periodSeconds: 1 }),
      startupProbe: apiserverProbe('/livez', { failureThreshold: 24, initialDelaySeconds: 10, periodSeconds: 10 }),
    }, [certs, data], '250m', { 'kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint': `${c.advertiseAddress}:${c.bindPort}` }),
    'kube-controller-manager': staticPod('kube-controller-manager', [
      'controller-manager', `--kubeconfig=${l.kubeconfig('controller-manager.conf')}`, '--controllers=*,-scheduler',
      '--leader-elect=true', `--metrics-port=${c.controllerManagerPort}`,
      // csrsigning issues the joining kubelets' client certificates with the cluster CA, as kubeadm's flags say.
      `--cluster-signing-cert-file=${join(l.certDir, 'ca.crt')}`, `--cluster-signing-key-file=${join(l.certDir, 'ca.key')}`,
      // As kubeadm's: the tokens controller signs Secret-based service-account tokens with sa.key.
      `--root-ca-file=${join(l.certDir, 'ca.crt')}`, `--service-account-private-key-file=${join(l.certDir, 'sa.key')}`,
      ...(c.podSubnet ? ['--allocate-node-cidrs=true', `--cluster-cidr=${c.podSubnet}`] : []),
    ], {
      livenessProbe: healthz(c.controllerManagerPort, { failureThreshold: 8, initialDelaySeconds: 10, periodSeconds: 10 }),
      startupProbe: healthz(c.controllerManagerPort, { failureThreshold: 24, initialDelaySeconds: 10, periodSeconds: 10 }),
    }, [certs, kubeconfigOf('controller-manager.conf')], '200m'),
    'kube-scheduler': staticPod('kube-scheduler', [
      'scheduler', `--kubeconfig=${l.kubeconfig('scheduler.conf')}`, '--leader-elect=true', `--metrics-port=${c.schedulerPort}`,
    ], {
      livenessProbe: healthz(c.schedulerPort, { failureThreshold: 8, initialDelaySeconds: 10, periodSeconds: 10 }),
      readinessProbe: healthz(c.schedulerPort, { failureThreshold: 3, periodSeconds: 1 }),
      startupProbe: healthz(c.schedulerPort, { failureThreshold: 24, initialDelaySeconds: 10, periodSeconds: 10 }),
    }, [kubeconfigOf('scheduler.conf')], '100m'),
  };
}

export const manifestPath = (layout: NodeLayout, component: ControlPlaneComponent) => join(layout.manifestsDir, `${component}.yaml`);

/** Writes the manifests, printing kubeadm's lines. */
export async function controlPlanePhase(c: ControlPlaneConfig, log: (line: string) => void): Promise<Record<ControlPlaneComponent, Pod>> {
  const pods = controlPlanePods(c);
  log(`[control-plane] Using manifest folder "${c.layout.manifestsDir}"`);
  for (const component of CONTROL_PLANE_COMPONENTS) {
    log(`[control-plane] Creating static Pod manifest for "${component}"`);
    await writeFileAtomic(manifestPath(c.layout, component), stringify(pods[component]), 0o600);
  }
  return pods;
}

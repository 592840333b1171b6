/**
 * `k8ts join ENDPOINT --control-plane [--certificate-key KEY]`: kubeadm join's
 * control-plane phases, on top of a worker's join (discovery, TLS bootstrap):
 *   preflight (control plane)  the cluster has a controlPlaneEndpoint; the shared keys come from somewhere
 *   control-plane-prepare      download-certs (kubeadm-certs with the key), certs (this node's serving
 *                              and client certificates from the shared CAs), kubeconfig
 *   check-etcd                 the stacked etcd cluster answers through the mirror pods' endpoints
 *   kubelet-start              (join.ts) the kubelet, TLS-bootstrapped
 *   etcd-join                  MemberAdd, then etcd.yaml with --initial-cluster-state=existing
 *   control-plane              the API server, controller manager and scheduler static pods
 *   mark-control-plane         labels and taint, as init
 * Departure from kubeadm's order: the control-plane manifests are written after the etcd member
 * joined (kubeadm writes them before kubelet-start), so this node's API server, which talks to its
 * local etcd only, never starts before that etcd and never enters the kubelet's restart back-off.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Etcd3 } from 'etcd3';
import { Clientset, loadKubeconfig } from '../../client/index.js';
import type { NodeLayout } from './layout.js';
import { certsPhase } from './certs.js';
import { etcdClientFiles } from './etcd-certs.js';
import { etcdPhase, etcdClientURL, etcdPeerURL, type LocalEtcdConfig } from './etcd-manifest.js';
import { kubeconfigPhase, JOIN_CONTROL_PLANE_KUBECONFIGS } from './kubeconfigs.js';
import { controlPlanePhase, type ControlPlaneConfig } from './manifests.js';
import { downloadCertsPhase, sharedCertsPresent } from './download-certs.js';
import { kubeadmConfigMap } from './upload-config.js';
import { addEtcdMember, etcdEndpointsFromCluster, etcdMemberStarted, openEtcdMembersClient, removeEtcdMember } from './etcd-members.js';
import { serviceIPOf } from './common.js';
import { poll } from './wait.js';
import { markControlPlane } from './init.js';
import { componentUserAgent } from '../../util/user-agent.js';

export interface ControlPlaneJoinOptions {
  layout: NodeLayout;
  nodeName: string;
  advertiseAddress: string;
  bindPort: number;
  certificateKey?: string;
  controllerManagerPort: number;
  schedulerPort: number;
  etcdClientPort: number;
  etcdPeerPort: number;
  etcdMetricsPort: number;
  timeoutMs: number;
  log(line: string): void;
}

/** What join reads from kubeadm-config's ClusterConfiguration. */
export interface JoinClusterConfig { controlPlaneEndpoint: string; serviceSubnet: string; podSubnet?: string }

export async function readClusterConfiguration(clients: Clientset): Promise<JoinClusterConfig> {
  const cm = await clients.resource('configmaps').get('kube-system', kubeadmConfigMap) as ConfigMap;
  const cfg = parse(cm.data?.ClusterConfiguration ?? '') as { controlPlaneEndpoint?: string; networking?: { serviceSubnet?: string; podSubnet?: string } } | null;
  return {
    controlPlaneEndpoint: cfg?.controlPlaneEndpoint ?? '',
    serviceSubnet: cfg?.networking?.serviceSubnet ?? '10.96.0.0/12',
    ...(cfg?.networking?.podSubnet ? { podSubnet: cfg.networking.podSubnet } : {}),
  };
}

/** kubeadm's checkIfReadyForAdditionalControlPlane, with its words. */
export function checkReadyForAdditionalControlPlane(cfg: JoinClusterConfig, o: ControlPlaneJoinOptions): void {
  const problems: string[] = [];
  if (!cfg.controlPlaneEndpoint) problems.push('unable to add a new control plane instance to a cluster that doesn\'t have a stable controlPlaneEndpoint address');
  if (!o.certificateKey) {
    const missing = sharedCertsPresent(o.layout.certDir, existsSync);
    if (missing) problems.push(`no --certificate-key was given and the shared certificates are missing: ${missing}`);
  }
  if (problems.length === 0) return;
  throw new Error(`
One or more conditions for hosting a new control plane instance is not satisfied.

${problems.join('\n')}

Please ensure that:
* The cluster has a stable controlPlaneEndpoint address.
* The certificates that must be shared among control plane instances are provided.
`);
}

const endpointHost = (endpoint: string) => endpoint.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');

/**
 * control-plane-prepare: download-certs, certs and kubeconfig. `bootstrap` is the bootstrap-token client
 * (it may read kubeadm-certs); returns the files written, for join's undo.
 */
export async function prepareControlPlane(bootstrap: Clientset, cfg: JoinClusterConfig, o: ControlPlaneJoinOptions): Promise<string[]> {
  const { layout, log } = o;
  const written: string[] = [];
  if (o.certificateKey) written.push(...await downloadCertsPhase(bootstrap, { certDir: layout.certDir, certificateKey: o.certificateKey, log }));
  await certsPhase({
    certDir: layout.certDir, dataDir: layout.dataDir, nodeName: o.nodeName, advertiseAddress: o.advertiseAddress,
    serviceIP: serviceIPOf(cfg.serviceSubnet), datastore: 'etcd', extraHosts: [endpointHost(cfg.controlPlaneEndpoint)], log,
  });
  log(`[certs] Valid certificates and keys now exist in "${layout.certDir}"`);
  log('[kubeconfig] Generating kubeconfig files');
  const ca = { certPem: readText(join(layout.certDir, 'ca.crt')), keyPem: readText(join(layout.certDir, 'ca.key')) };
  await kubeconfigPhase({
    layout, ca, server: `https://${cfg.controlPlaneEndpoint}`, localServer: localServer(o), nodeName: o.nodeName, log, only: JOIN_CONTROL_PLANE_KUBECONFIGS,
  });
  written.push(...JOIN_CONTROL_PLANE_KUBECONFIGS.map((f) => layout.kubeconfig(f)));
  return written;
}

const localServer = (o: ControlPlaneJoinOptions) => `https://${o.advertiseAddress.includes(':') ? `[${o.advertiseAddress}]` : o.advertiseAddress}:${o.bindPort}`;

const readText = (path: string) => readFileSync(path, 'utf8');

/** An etcd client on the cluster's members, found through admin.conf. */
async function clusterEtcd(admin: Clientset, o: ControlPlaneJoinOptions): Promise<Etcd3> {
  return openEtcdMembersClient(await etcdEndpointsFromCluster(admin), o.layout.certDir);
}

/** Removes the member with `peerURL` again, through its own client (join's undo runs after its clients closed). */
const removeMemberLater = (endpoints: string[], certDir: string, peerURL: string) => async () => {
  const etcd = openEtcdMembersClient(endpoints, certDir);
  try { await removeEtcdMember(etcd, peerURL); } catch { /* best effort, as kubeadm's cleanup */ } finally { etcd.close(); }
};

/** check-etcd: kubeadm's "[check-etcd] Checking that the etcd cluster is healthy" (every member answers). */
export async function checkEtcdPhase(o: ControlPlaneJoinOptions): Promise<void> {
  o.log('[check-etcd] Checking that the etcd cluster is healthy');
  const admin = new Clientset(loadKubeconfig(o.layout.kubeconfig('admin.conf')), { userAgent: componentUserAgent('kubeadm') });
  const etcd = await clusterEtcd(admin, o).finally(() => admin.close());
  try {
    const { members } = await etcd.cluster.memberList({});
    const unstarted = members.filter((m) => !m.name);
    if (unstarted.length) throw new Error(`etcd cluster is not healthy: member ${unstarted[0]!.peerURLs.join(',')} has not started`);
  } catch (e) {
    throw new Error(`etcd cluster is not healthy: ${(e as Error).message}`);
  } finally {
    etcd.close();
  }
}

/**
 * etcd-join, control-plane and mark-control-plane, after the kubelet's TLS bootstrap. Returns an undo
 * that removes the etcd member again (a failed join must not leave the cluster one vote short).
 */
export async function joinControlPlane(cfg: JoinClusterConfig, o: ControlPlaneJoinOptions, undo: Array<() => Promise<void>>): Promise<void> {
  const { layout, log } = o;
  const admin = new Clientset(loadKubeconfig(layout.kubeconfig('admin.conf')), { userAgent: componentUserAgent('kubeadm') });
  try {
    const endpoints = await etcdEndpointsFromCluster(admin);
    const etcd = openEtcdMembersClient(endpoints, layout.certDir);
    const peerURL = etcdPeerURL(o.advertiseAddress, o.etcdPeerPort);
    try {
      const initialCluster = await addEtcdMember(etcd, o.nodeName, peerURL);
      undo.push(removeMemberLater(endpoints, layout.certDir, peerURL));
      log('[etcd] Announced new etcd member joining to the existing etcd cluster');
      const local: LocalEtcdConfig = {
        layout, nodeName: o.nodeName, advertiseAddress: o.advertiseAddress, clientPort: o.etcdClientPort,
        peerPort: o.etcdPeerPort, metricsPort: o.etcdMetricsPort, initialCluster, initialClusterState: 'existing',
      };
      log(`[etcd] Creating static Pod manifest for "etcd"`);
      await etcdPhase(local, () => undefined);
      log(`[etcd] Waiting for the new etcd member to join the cluster. This can take up to ${Math.round(Math.min(o.timeoutMs, 40_000) / 1000)}s`);
      await poll(async () => ((await etcdMemberStarted(etcd, peerURL)) ? true : undefined), Math.max(o.timeoutMs, 40_000),
        () => `error creating local etcd static pod manifest file: timeout waiting for etcd cluster to be available`, 500);
    } finally {
      etcd.close();
    }
    const cp: ControlPlaneConfig = {
      layout, advertiseAddress: o.advertiseAddress, bindPort: o.bindPort, controllerManagerPort: o.controllerManagerPort,
      schedulerPort: o.schedulerPort, serviceSubnet: cfg.serviceSubnet, ...(cfg.podSubnet ? { podSubnet: cfg.podSubnet } : {}),
      etcd: { servers: [etcdClientURL('127.0.0.1', o.etcdClientPort)], ...etcdClientFiles(layout.certDir) },
    };
    await controlPlanePhase(cp, log);
    await markControlPlane(admin, o.nodeName, o.timeoutMs, log);
  } finally {
    admin.close();
  }
}

export function controlPlaneJoinedMessage(layout: NodeLayout): string {
  return `
This node has joined the cluster and a new control plane instance was created:

* Certificate signing request was sent to apiserver and approval was received.
* The Kubelet was informed of the new secure connection details.
* Control plane label and taint were applied to the new node.
* The Kubernetes control plane instances scaled up.
* A new etcd member was added to the local/stacked etcd cluster.

To start administering your cluster from this node, you need to run the following as a regular user:

\tmkdir -p $HOME/.kube
\tsudo cp -i ${layout.kubeconfig('admin.conf')} $HOME/.kube/config
\tsudo chown $(id -u):$(id -g) $HOME/.kube/config

Run 'kubectl get nodes' to see this node join the cluster.
`;
}

/**
 * init's kubeconfig phase: one kubeconfig per identity, each with a client
 * certificate the cluster CA signs (kubeadm's kubeconfig phase):
 *   admin.conf              kubernetes-admin, O kubeadm:cluster-admins (bound to cluster-admin)
 *   super-admin.conf        kubernetes-super-admin, O system:masters (bypasses authorization)
 *   kubelet.conf            system:node:<name>, O system:nodes
 *   controller-manager.conf system:kube-controller-manager
 *   scheduler.conf          system:kube-scheduler
 */
import { buildKubeconfig, issueCertificate, writeKubeconfig, LEAF_DAYS, type CertificateAuthority } from '../../pki/index.js';
import type { KubeconfigName, NodeLayout } from './layout.js';

/** kubeadm's group for admin.conf, bound to cluster-admin by the ClusterRoleBinding of the same name. */
export const CLUSTER_ADMINS_GROUP = 'kubeadm:cluster-admins';

interface Identity { file: KubeconfigName; user: string; groups: string[] }

export function controlPlaneIdentities(nodeName: string): Identity[] {
  return [
    { file: 'admin.conf', user: 'kubernetes-admin', groups: [CLUSTER_ADMINS_GROUP] },
    { file: 'super-admin.conf', user: 'kubernetes-super-admin', groups: ['system:masters'] },
    { file: 'kubelet.conf', user: `system:node:${nodeName}`, groups: ['system:nodes'] },
    { file: 'controller-manager.conf', user: 'system:kube-controller-manager', groups: [] },
    { file: 'scheduler.conf', user: 'system:kube-scheduler', groups: [] },
  ];
}

/** The files a joining control plane writes (kubeadm join: its kubelet gets kubelet.conf through the TLS bootstrap). */
export const JOIN_CONTROL_PLANE_KUBECONFIGS: KubeconfigName[] = ['admin.conf', 'controller-manager.conf', 'scheduler.conf'];

/** The controller manager and scheduler talk to their own node's API server (kubeadm's LocalAPIEndpoint); the rest to the endpoint. */
const LOCAL_ONLY: KubeconfigName[] = ['controller-manager.conf', 'scheduler.conf'];

export async function kubeconfigPhase(o: {
  layout: NodeLayout; ca: CertificateAuthority; server: string; nodeName: string; log(line: string): void;
  /** This node's API server, when it differs from the control-plane endpoint `server`. */
  localServer?: string;
  /** Only these files (join --control-plane); default all of init's. */
  only?: KubeconfigName[];
}): Promise<void> {
  o.log(`[kubeconfig] Using kubeconfig folder "${o.layout.kubernetesDir}"`);
  for (const id of controlPlaneIdentities(o.nodeName).filter((i) => !o.only || o.only.includes(i.file))) {
    const cert = await issueCertificate({ ca: o.ca, commonName: id.user, organizations: id.groups, usages: ['client'], days: LEAF_DAYS });
    o.log(`[kubeconfig] Writing "${id.file}" kubeconfig file`);
    await writeKubeconfig(o.layout.kubeconfig(id.file), buildKubeconfig({
      server: LOCAL_ONLY.includes(id.file) ? (o.localServer ?? o.server) : o.server, caCertPem: o.ca.certPem, userName: id.user, clientCertPem: cert.certPem, clientKeyPem: cert.keyPem,
    }));
  }
}

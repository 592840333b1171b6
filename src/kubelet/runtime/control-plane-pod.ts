/**
 * Which static pods are the control plane's: kubeadm labels the static pods
 * it writes (kube-apiserver, kube-controller-manager, kube-scheduler, etcd)
 * `tier: control-plane` (cmd/kubeadm/app/util/staticpod: ComponentPod). On a
 * node whose control plane runs as host processes (init's
 * --static-pod-runtime process), only these go there; a static pod a user
 * drops into the manifest directory (the seed's static-web) runs its image on
 * the node's container runtime like every other pod.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isStaticPod } from '../staticpods/manifest.js';

export function isControlPlaneStaticPod(pod: Pod): boolean {
  return isStaticPod(pod) && pod.metadata?.labels?.tier === 'control-plane';
}

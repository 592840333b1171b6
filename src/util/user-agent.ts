/**
 * The User-Agent of a component's API clients, in upstream's form (client-go's
 * DefaultKubernetesUserAgent: `<command>/<version> (<os>/<arch>) kubernetes/<commit>`, and
 * AddUserAgent's `/<suffix>`). The API server names a write's field manager after the part
 * before the first '/', so a Deployment's status shows `kube-controller-manager` and a pod's
 * `kubelet`, as on a kubeadm cluster, whoever's code made the request.
 */
import { kubernetesVersion } from './kube-version.js';

export type Component = 'kube-controller-manager' | 'kube-scheduler' | 'kubelet' | 'kubeadm' | 'kube-proxy';

export function componentUserAgent(component: Component, suffix?: string): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const base = `${component}/${kubernetesVersion} (${process.platform}/${arch}) kubernetes/k8ts`;
  return suffix ? `${base}/${suffix}` : base;
}

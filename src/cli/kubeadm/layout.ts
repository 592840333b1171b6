/**
 * Where kubeadm keeps a node's files, under a prefix (default `/`) so that a
 * test, or a second node on one machine, can keep its own tree:
 *   PREFIX/etc/kubernetes            kubeconfigs (admin.conf, kubelet.conf, ...)
 *   PREFIX/etc/kubernetes/pki        certificates and keys (--cert-dir)
 *   PREFIX/etc/kubernetes/manifests  static pod manifests
 *   PREFIX/var/lib/kubelet           the kubelet's state, its pid and log files
 *   PREFIX/var/lib/k8ts              the API server's SQLite database (init --datastore sqlite)
 *   PREFIX/var/lib/etcd              local etcd's data directory (kubeadm's)
 */
import { join, resolve } from 'node:path';

export interface NodeLayout {
  prefix: string;
  kubernetesDir: string;
  certDir: string;
  manifestsDir: string;
  kubeletDir: string;
  dataDir: string;
  etcdDataDir: string;
  podLogsDir: string;
  /** A supervised service's pid file (no systemd): PREFIX/var/lib/kubelet/NAME.pid. */
  pidFile(service: string): string;
  /** Its log: PREFIX/var/log/NAME.log. */
  logFile(service: string): string;
  kubeconfig(name: KubeconfigName): string;
}

export type KubeconfigName = 'admin.conf' | 'super-admin.conf' | 'kubelet.conf' | 'bootstrap-kubelet.conf' | 'controller-manager.conf' | 'scheduler.conf';

export const KUBECONFIG_NAMES: KubeconfigName[] = ['admin.conf', 'super-admin.conf', 'kubelet.conf', 'bootstrap-kubelet.conf', 'controller-manager.conf', 'scheduler.conf'];

export function nodeLayout(prefix = '/', certDir?: string): NodeLayout {
  const root = resolve(prefix);
  const kubernetesDir = join(root, 'etc/kubernetes');
  const kubeletDir = join(root, 'var/lib/kubelet');
  return {
    prefix: root, kubernetesDir, kubeletDir,
    certDir: certDir ? resolve(certDir) : join(kubernetesDir, 'pki'),
    manifestsDir: join(kubernetesDir, 'manifests'),
    dataDir: join(root, 'var/lib/k8ts'),
    etcdDataDir: join(root, 'var/lib/etcd'),
    podLogsDir: join(root, 'var/log/pods'),
    pidFile: (service) => join(kubeletDir, `${service}.pid`),
    logFile: (service) => join(root, 'var/log', `${service}.log`),
    kubeconfig: (name) => join(kubernetesDir, name),
  };
}

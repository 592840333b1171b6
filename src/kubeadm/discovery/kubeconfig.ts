/**
 * The kubeconfig inside cluster-info, read as kubeadm reads it
 * (clientcmd.Load, then kubeconfigutil.GetClusterFromKubeConfig): the unnamed
 * cluster if there is one, else the current context's.
 */
import { parse } from 'yaml';

export interface ClusterInfoCluster { name: string; server: string; caPem: string }

const seq = (v: unknown): any[] => (Array.isArray(v) ? v : []);

export function clusterFromKubeconfig(text: string): ClusterInfoCluster {
  let doc: any;
  try {
    doc = parse(text);
  } catch (e) {
    throw new Error(`couldn't parse the kubeconfig file in the cluster-info ConfigMap: ${(e as Error).message}`);
  }
  const clusters = new Map<string, any>(seq(doc?.clusters).map((c) => [String(c?.name ?? ''), c?.cluster ?? {}]));
  let name = '';
  let cluster = clusters.get('');
  if (!cluster) {
    const current = String(doc?.['current-context'] ?? '');
    const context = seq(doc?.contexts).find((c) => c?.name === current)?.context;
    if (!context) throw new Error(`malformed kubeconfig in the cluster-info ConfigMap: the current context is invalid: ${current}`);
    name = String(context.cluster ?? '');
    cluster = clusters.get(name);
    if (!cluster) throw new Error(`malformed kubeconfig in the cluster-info ConfigMap: no matching cluster for the current context: ${current}`);
  }
  const caData = cluster['certificate-authority-data'];
  return { name, server: String(cluster.server ?? ''), caPem: caData ? Buffer.from(String(caData), 'base64').toString('utf8') : '' };
}

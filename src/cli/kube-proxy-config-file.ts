/**
 * kube-proxy's configuration file (`--config`,
 * kubeproxy.config.k8s.io/v1alpha1 KubeProxyConfiguration), as kubeadm stores
 * it in the `kube-proxy` ConfigMap (key config.conf) and its DaemonSet
 * mounts at /var/lib/kube-proxy. k8ts proxy reads the fields it has flags
 * for; the others (conntrack, iptables, ipvs, ...) are accepted and ignored.
 * As upstream: with --config the file's values are used and the other flags
 * are not, except --hostname-override, which wins over hostnameOverride
 * (kubeadm's DaemonSet passes the node's name that way).
 */
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';

export const kubeProxyConfigAPIVersion = 'kubeproxy.config.k8s.io/v1alpha1';

/** The fields of KubeProxyConfiguration k8ts proxy reads. */
export interface KubeProxyConfiguration {
  apiVersion: typeof kubeProxyConfigAPIVersion;
  kind: 'KubeProxyConfiguration';
  /** "nftables" (or "", which k8ts takes as nftables): the only mode k8ts proxy has. */
  mode?: string;
  clusterCIDR?: string;
  hostnameOverride?: string;
  bindAddress?: string;
  metricsBindAddress?: string;
  healthzBindAddress?: string;
  nodePortAddresses?: string[];
  /** kubeconfig of the API server; "" or absent: in-cluster (the pod's service account). */
  clientConnection?: { kubeconfig?: string };
  nftables?: { minSyncPeriod?: string; syncPeriod?: string };
}

/** What kubeadm's kube-proxy addon writes (phases/addons/proxy), for the nftables mode. */
export function defaultKubeProxyConfiguration(clusterCIDR: string | undefined): KubeProxyConfiguration {
  return {
    apiVersion: kubeProxyConfigAPIVersion, kind: 'KubeProxyConfiguration', mode: 'nftables', bindAddress: '0.0.0.0',
    ...(clusterCIDR ? { clusterCIDR } : {}),
    metricsBindAddress: '127.0.0.1:10249', healthzBindAddress: '0.0.0.0:10256', nodePortAddresses: ['primary'],
    nftables: { minSyncPeriod: '1s', syncPeriod: '30s' },
  };
}

export const kubeProxyConfigurationYAML = (c: KubeProxyConfiguration): string => stringify(c);

const str = (o: Record<string, unknown>, k: string, path = k): string | undefined => {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new Error(`invalid configuration: ${path}: must be a string`);
  return v;
};

/** Parses a KubeProxyConfiguration document; `source` names the file for the errors. */
export function parseKubeProxyConfiguration(text: string, source: string): KubeProxyConfiguration {
  let doc: unknown;
  try { doc = parse(text); } catch (e) { throw new Error(`failed to decode ${source}: ${(e as Error).message}`); }
  if (typeof doc !== 'object' || doc === null) throw new Error(`failed to decode ${source}: not an object`);
  const o = doc as Record<string, unknown>;
  if (o.kind !== 'KubeProxyConfiguration' || o.apiVersion !== kubeProxyConfigAPIVersion) {
    throw new Error(`failed to decode ${source}: no kind "${String(o.kind)}" is registered for version "${String(o.apiVersion)}" (want ${kubeProxyConfigAPIVersion} KubeProxyConfiguration)`);
  }
  const mode = str(o, 'mode');
  if (mode && mode !== 'nftables') throw new Error(`invalid configuration: KubeProxyConfiguration.Mode: Unsupported value: "${mode}": k8ts proxy runs the nftables mode only`);
  const npa = o.nodePortAddresses;
  if (npa !== undefined && npa !== null && (!Array.isArray(npa) || npa.some((a) => typeof a !== 'string'))) {
    throw new Error('invalid configuration: KubeProxyConfiguration.NodePortAddresses: must be a list of CIDRs or "primary"');
  }
  const cc = (o.clientConnection ?? {}) as Record<string, unknown>;
  const nft = (o.nftables ?? {}) as Record<string, unknown>;
  const kubeconfig = str(cc, 'kubeconfig', 'clientConnection.kubeconfig');
  const minSyncPeriod = str(nft, 'minSyncPeriod', 'nftables.minSyncPeriod');
  const opt = <K extends string, V>(k: K, v: V | undefined) => (v === undefined ? {} : { [k]: v } as Record<K, V>);
  return {
    apiVersion: kubeProxyConfigAPIVersion, kind: 'KubeProxyConfiguration',
    ...opt('mode', mode), ...opt('clusterCIDR', str(o, 'clusterCIDR')), ...opt('hostnameOverride', str(o, 'hostnameOverride')),
    ...opt('bindAddress', str(o, 'bindAddress')), ...opt('metricsBindAddress', str(o, 'metricsBindAddress')),
    ...opt('healthzBindAddress', str(o, 'healthzBindAddress')), ...opt('nodePortAddresses', (npa ?? undefined) as string[] | undefined),
    ...(kubeconfig ? { clientConnection: { kubeconfig } } : {}),
    ...(minSyncPeriod ? { nftables: { minSyncPeriod } } : {}),
  };
}

export function readKubeProxyConfigFile(path: string): KubeProxyConfiguration {
  let text: string;
  try { text = readFileSync(path, 'utf8'); } catch (e) { throw new Error(`failed to read config file "${path}": ${(e as Error).message}`); }
  return parseKubeProxyConfiguration(text, `config file "${path}"`);
}

/**
 * The flag values the file stands for (kube-proxy: the file replaces the
 * flags, --hostname-override aside), so one validation path serves both.
 */
export function kubeProxyFlagsFromConfig(c: KubeProxyConfiguration, hostnameOverride: string | undefined): Record<string, string | undefined> {
  return {
    kubeconfig: c.clientConnection?.kubeconfig || undefined,
    'hostname-override': hostnameOverride ?? (c.hostnameOverride || undefined),
    'cluster-cidr': c.clusterCIDR || undefined,
    'nodeport-addresses': c.nodePortAddresses?.length ? c.nodePortAddresses.join(',') : undefined,
    'metrics-bind-address': c.metricsBindAddress || '127.0.0.1:10249',
    'healthz-bind-address': c.healthzBindAddress || '0.0.0.0:10256',
    'min-sync-period': c.nftables?.minSyncPeriod || '1s',
  };
}
